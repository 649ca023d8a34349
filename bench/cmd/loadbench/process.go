package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat. It
// is 100 on every Linux architecture Go supports.
const clockTicks = 100

// process is a server started by the harness.
type process struct {
	name string
	cmd  *exec.Cmd
	addr string
	// metricsAddr is where its /metrics answer, when it logged one.
	metricsAddr string
	done        chan error
}

// start runs bin with args and waits for its JSON "serving" line on stderr,
// which carries the bound address. The rest of stderr (the request log) is
// drained and dropped. It waits as long as the server is starting, not for
// a fixed time: a server logs serving once it is ready, however busy the
// machine, or it exits; only ctx ends the wait otherwise.
func start(ctx context.Context, name, bin string, args ...string) (*process, error) {
	cmd := exec.Command(bin, args...)
	// The servers die with the harness, however it ends (an interrupt, a
	// closed output pipe), so a run never leaves them behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan error, 1)}
	addrs := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			if line.Msg == "metrics listening" {
				p.metricsAddr = line.Addr // read after addrs is received
			}
			if line.Msg == "serving" {
				addrs <- line.Addr
				break
			}
		}
		io.Copy(io.Discard, stderr)
		p.done <- cmd.Wait()
	}()
	started := time.Now()
	select {
	case p.addr = <-addrs:
		return p, nil
	case err := <-p.done:
		return nil, fmt.Errorf("%s exited before serving: %v", name, err)
	case <-ctx.Done():
		p.stop()
		return nil, fmt.Errorf("%s: no serving line after %s: %w", name, time.Since(started).Round(time.Millisecond), context.Cause(ctx))
	}
}

// stop sends SIGTERM and waits; SIGKILL after 10 seconds.
func (p *process) stop() {
	if p.cmd.Process == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// cpuTime is the user plus system CPU time the process has used so far.
func (p *process) cpuTime() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(b))
}

// parseStatCPU reads utime+stime from the text of /proc/PID/stat.
func parseStatCPU(s string) (time.Duration, error) {
	// The command name (field 2) may hold spaces; fields after it are
	// counted from the closing parenthesis. utime and stime are fields 14
	// and 15, the 12th and 13th after the parenthesis.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, errors.New("malformed /proc stat")
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// memory reads VmRSS (resident now) and VmHWM (the peak since start or
// since the last resetPeak) in bytes.
func (p *process) memory() (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	return parseStatusMemory(string(b))
}

// parseStatusMemory reads VmRSS and VmHWM from the text of /proc/PID/status.
func parseStatusMemory(status string) (rss, peak int64, err error) {
	for line := range strings.SplitSeq(status, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc status %s: %w", key, err)
		}
		if key == "VmRSS" {
			rss = kb << 10
		} else {
			peak = kb << 10
		}
	}
	return rss, peak, nil
}

// resetPeak sets VmHWM back to the current RSS (writing 5 to clear_refs),
// so that each phase reports its own peak. It reports whether the kernel
// allowed it; when not, peaks are since the process started.
func (p *process) resetPeak() bool {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.cmd.Process.Pid), []byte("5"), 0) == nil
}
