package main

// The pool measurement (-pool): what the memo is worth across replicas.
//
// Each replica remembers what callers resend (decoded values, read
// programs, token counts), and an agent resends its whole run on every
// call. When a client spreads a run's calls round-robin over the replicas,
// each replica reads the run's history once for itself; when it keeps a
// run on one replica (rendezvous hashing of the run's id over the
// addresses, as the clients do), one replica reads it once. A phase starts fresh replicas, drives -runs
// concurrent agent runs of -turns turns each (EvalTurn by replay with two
// tool calls, then ToMessages over the turns so far) with one of the two
// balancings, and reads from the replicas themselves their CPU time
// (/proc/PID/stat, so that other work on the machine is not counted) and
// their memo counters (/metrics). Phases alternate between the balancings.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// balancings are the two ways of spreading a run's calls.
var balancings = []string{"round-robin", "by-run"}

// poolPhase is what one phase measured, summed over the replicas.
type poolPhase struct {
	calls           int           // RPCs sent
	cpu             time.Duration // the replicas' CPU time during the phase
	hits, misses    int64         // memo lookups during the phase, all tables
	tableHits       map[string][2]int64
	busiest, idlest int // RPCs of the replica with the most and the fewest
}

func (p poolPhase) hitRate() float64 { return float64(p.hits) / float64(p.hits+p.misses) }

func (p poolPhase) cpuPerCall() time.Duration { return p.cpu / time.Duration(p.calls) }

// runPool builds the sidecar and writes the pool report to out.
func runPool(ctx context.Context, cfg config, out io.Writer) error {
	dir, err := os.MkdirTemp("", "loadbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := sidecarBinary(cfg, dir)
	if err != nil {
		return err
	}
	printMachine(out)
	fmt.Fprintf(out, "pool: %d replicas, %d concurrent runs of %d turns, %d rounds\n", cfg.replicas, cfg.runs, cfg.turns, cfg.rounds)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "balancing\tround\tcalls\tmemo hit rate\tvalues\tprograms\ttoken_counts\tcpu/call\tcalls per replica\t\n")
	results := map[string][]poolPhase{}
	for round := 1; round <= cfg.rounds; round++ {
		for _, b := range balancings {
			ph, err := poolRun(ctx, cfg, bin, b, round)
			if err != nil {
				return fmt.Errorf("%s, round %d: %w", b, round, err)
			}
			results[b] = append(results[b], ph)
			rate := func(table string) string {
				h := ph.tableHits[table]
				if h[0]+h[1] == 0 {
					return "-"
				}
				return fmt.Sprintf("%.1f%%", 100*float64(h[0])/float64(h[0]+h[1]))
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\t%s\t%s\t%s\t%s\t%d-%d\t\n", b, round, ph.calls, 100*ph.hitRate(),
				rate("values"), rate("programs"), rate("token_counts"), ms(ph.cpuPerCall()), ph.idlest, ph.busiest)
		}
	}
	tw.Flush()
	for _, b := range balancings {
		var rates, cpus []float64
		for _, ph := range results[b] {
			rates = append(rates, 100*ph.hitRate())
			cpus = append(cpus, msf(ph.cpuPerCall()))
		}
		slices.Sort(rates)
		slices.Sort(cpus)
		fmt.Fprintf(out, "%s, median (min-max) of %d rounds: memo hit rate %.1f%% (%.1f-%.1f), CPU per call %.3f ms (%.3f-%.3f)\n",
			b, cfg.rounds, rates[len(rates)/2], rates[0], rates[len(rates)-1], cpus[len(cpus)/2], cpus[0], cpus[len(cpus)-1])
	}
	printLoad(out, "at the end")
	return nil
}

// poolRun starts the replicas, drives the runs with one balancing and
// stops the replicas.
func poolRun(ctx context.Context, cfg config, bin, balancing string, round int) (poolPhase, error) {
	var procs []*process
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"}, cfg.serverArgs...)
	for i := range cfg.replicas {
		p, err := start(ctx, fmt.Sprintf("replica-%d", i), bin, args...)
		if err != nil {
			return poolPhase{}, err
		}
		if p.metricsAddr == "" {
			return poolPhase{}, fmt.Errorf("%s logged no metrics address", p.name)
		}
		procs = append(procs, p)
	}
	conns, err := poolConns(procs, balancing)
	if err != nil {
		return poolPhase{}, err
	}
	defer func() {
		for _, cc := range conns {
			cc.Close()
		}
	}()
	cpu0, memo0, calls0, err := poolCounters(procs)
	if err != nil {
		return poolPhase{}, err
	}

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		calls    int
		firstErr error
	)
	for r := range cfg.runs {
		id := fmt.Sprintf("round-%d-%s-run-%d", round, balancing, r)
		cc := conns[0]
		if len(conns) > 1 {
			cc = conns[rendezvous(id, procs)]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := agentRun(ctx, ptcsidecarv1.NewSidecarServiceClient(cc), r, round, cfg.turns)
			mu.Lock()
			defer mu.Unlock()
			calls += n
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", id, err)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return poolPhase{}, firstErr
	}
	cpu1, memo1, calls1, err := poolCounters(procs)
	if err != nil {
		return poolPhase{}, err
	}
	ph := poolPhase{calls: calls, cpu: cpu1 - cpu0, tableHits: map[string][2]int64{}, idlest: -1}
	for table, hm := range memo1 {
		d := [2]int64{hm[0] - memo0[table][0], hm[1] - memo0[table][1]}
		ph.tableHits[table] = d
		ph.hits += d[0]
		ph.misses += d[1]
	}
	for i := range calls1 {
		n := calls1[i] - calls0[i]
		ph.busiest = max(ph.busiest, n)
		if ph.idlest < 0 || n < ph.idlest {
			ph.idlest = n
		}
	}
	return ph, nil
}

// rendezvous is the replica a run is kept on, as the clients choose it:
// the one whose address scores highest hashed with the run's id.
func rendezvous(id string, procs []*process) int {
	best, bestScore := 0, uint64(0)
	for i, p := range procs {
		sum := sha256.Sum256([]byte(id + "\x00" + p.addr))
		if score := binary.BigEndian.Uint64(sum[:8]); i == 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// poolConns dials the replicas: for round-robin one channel over all their
// addresses with gRPC's round_robin policy, as the clients do; for by-run
// one channel per replica, of which a run's id picks one.
func poolConns(procs []*process, balancing string) ([]*grpc.ClientConn, error) {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20))}
	if balancing == "round-robin" {
		r := manual.NewBuilderWithScheme("pool")
		var addrs []resolver.Address
		for _, p := range procs {
			addrs = append(addrs, resolver.Address{Addr: p.addr})
		}
		r.InitialState(resolver.State{Addresses: addrs})
		cc, err := grpc.NewClient(r.Scheme()+":///replicas", append(opts, grpc.WithResolvers(r),
			grpc.WithDefaultServiceConfig(`{"loadBalancingConfig":[{"round_robin":{}}]}`))...)
		if err != nil {
			return nil, err
		}
		return []*grpc.ClientConn{cc}, nil
	}
	var conns []*grpc.ClientConn
	for _, p := range procs {
		cc, err := grpc.NewClient(p.addr, opts...)
		if err != nil {
			return nil, err
		}
		conns = append(conns, cc)
	}
	return conns, nil
}

// agentRun drives one run: each turn evaluates a program that calls a tool
// twice (three EvalTurn calls by replay), then asks for the next prompt
// over every turn so far, as an agent's loop does. It returns the RPCs
// made.
func agentRun(ctx context.Context, c ptcsidecarv1.SidecarServiceClient, run, round, turns int) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute) // guards a hang only
	defer cancel()
	data := &ptcsidecarv1.Value{Edn: runData(run, round)}
	tools := []*ptcsidecarv1.ToolSpec{{Name: "search", Signature: "(query :string, limit :int) -> [{name :string, price :int}]",
		Description: "Searches the catalogue."}}
	var (
		history  []*ptcsidecarv1.Turn
		memory   *ptcsidecarv1.Memory
		previous []*ptcsidecarv1.Value
		calls    int
	)
	for t := 1; t <= turns; t++ {
		req := &ptcsidecarv1.EvalTurnRequest{
			Program: fmt.Sprintf(`(def step-%[1]d (tool/search {:query "run %[2]d step %[1]d" :limit 5}))
(def seen-%[1]d (tool/search {:query "similar to step %[1]d" :limit 5}))
(println "step" %[1]d (count step-%[1]d) (count data/products))
(count (filter #(> (:price %%) (* 10 %[1]d)) data/products))`, t, run),
			Data: data, Tools: tools, TurnNumber: int32(t), Prelude: memory, PreviousResults: previous,
		}
		var turn *ptcsidecarv1.Turn
		for turn == nil {
			resp, err := c.EvalTurn(ctx, req)
			calls++
			if err != nil {
				return calls, err
			}
			turn = resp.GetTurn()
			for _, call := range resp.GetPending().GetCalls() {
				req.ToolResults = append(req.ToolResults, &ptcsidecarv1.ToolResult{Index: call.GetIndex(), Name: call.GetName(),
					Args: call.GetArgs(), Result: &ptcsidecarv1.Value{Edn: searchResult(run, t, int(call.GetIndex()))}})
			}
		}
		if !turn.GetSuccess() {
			return calls, fmt.Errorf("turn %d failed: %v", t, turn.GetError())
		}
		history = append(history, turn)
		memory = turn.GetMemory()
		previous = append([]*ptcsidecarv1.Value{turn.GetResult()}, previous...)[:min(3, len(previous)+1)]
		_, err := c.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{
			Options: &ptcsidecarv1.Options{Mission: fmt.Sprintf("Find the products of run %d worth a second look.", run),
				Tools: tools, Data: data},
			Turns: history, Memory: memory,
		})
		calls++
		if err != nil {
			return calls, err
		}
	}
	return calls, nil
}

// runData is a run's own catalogue of 200 products, different for every
// run and round, so that runs share no value text.
func runData(run, round int) string {
	var b strings.Builder
	b.WriteString("{:products [")
	for i := range 200 {
		fmt.Fprintf(&b, `{:name "r%d-%d item %d" :price %d :stock %d} `, round, run, i, (i*37+run)%500, i%7)
	}
	b.WriteString("]}")
	return b.String()
}

func searchResult(run, turn, call int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range 5 {
		fmt.Fprintf(&b, `{:name "run %d turn %d hit %d.%d" :price %d} `, run, turn, call, i, 10*i+turn)
	}
	b.WriteString("]")
	return b.String()
}

// poolCounters reads every replica's CPU time, the memo's hits and misses
// by table summed over the replicas, and each replica's handled RPCs.
func poolCounters(procs []*process) (time.Duration, map[string][2]int64, []int, error) {
	var cpu time.Duration
	memo := map[string][2]int64{}
	var handled []int
	for _, p := range procs {
		c, err := p.cpuTime()
		if err != nil {
			return 0, nil, nil, err
		}
		cpu += c
		m, err := scrape(p.metricsAddr)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("%s metrics: %w", p.name, err)
		}
		for k, v := range m {
			name, table, ok := strings.Cut(k, `{table="`)
			table = strings.TrimSuffix(table, `"}`)
			switch {
			case ok && name == "ptc_sidecar_memo_hits_total":
				memo[table] = [2]int64{memo[table][0] + int64(v), memo[table][1]}
			case ok && name == "ptc_sidecar_memo_misses_total":
				memo[table] = [2]int64{memo[table][0], memo[table][1] + int64(v)}
			}
		}
		n := 0
		for k, v := range m {
			if strings.HasPrefix(k, "grpc_server_handled_total{") {
				n += int(v)
			}
		}
		handled = append(handled, n)
	}
	return cpu, memo, handled, nil
}

// scrape reads a Prometheus text page into series -> value.
func scrape(addr string) (map[string]float64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}
