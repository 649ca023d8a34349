// Package manifests checks the Kubernetes manifests offline: each overlay
// renders with kustomize, every object it renders decodes strictly into
// its Kubernetes API type, as an API server with strict field validation
// decodes it, and the objects agree with each other and with the sidecar's
// settings. It is a module of its own so that kustomize and the API types
// stay out of the product's go.mod.
package manifests

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// The overlays, as directories below this one.
const (
	podSidecar = "overlays/pod-sidecar"
	pool       = "overlays/pool"
)

// sidecarName is the sidecar's container, and the pool's Deployment.
const sidecarName = "ptc-sidecar"

// exitGrace is how long the process may take past its shutdown timeout
// (handlerGrace in cmd/ptc-sidecar, docs/OPERATIONS.md).
const exitGrace = 500 * time.Millisecond

// apiTypes are the Kubernetes API groups whose objects the manifests may
// hold; any other kind fails the decoding.
func apiTypes() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv2.AddToScheme, policyv1.AddToScheme, networkingv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err) // the API packages' own tables
		}
	}
	return s
}

// render runs kustomize on the directory dir of fs, as `kubectl apply -k`
// does, and decodes each object it renders strictly: YAML with a key
// twice, a field the type does not have, one whose case differs from the
// type's, or a value of the wrong type fails.
func render(fs filesys.FileSystem, dir string) ([]runtime.Object, error) {
	rendered, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize %s: %w", dir, err)
	}
	// The API server's own decoder, in its strict mode (kubectl's
	// --validate=strict).
	types := apiTypes()
	codec := kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, types, types, kjson.SerializerOptions{Yaml: true, Strict: true})
	var objects []runtime.Object
	for _, r := range rendered.Resources() {
		what := r.GetKind() + " " + r.GetName()
		text, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		obj, _, err := codec.Decode(text, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		objects = append(objects, obj)
	}
	return objects, nil
}

// renderOnDisk renders an overlay of this directory.
func renderOnDisk(t *testing.T, overlay string) []runtime.Object {
	t.Helper()
	objects, err := render(filesys.MakeFsOnDisk(), overlay)
	if err != nil {
		t.Fatal(err)
	}
	return objects
}

// only is the one object of type T among objects.
func only[T runtime.Object](objects []runtime.Object) (T, error) {
	var found []T
	for _, o := range objects {
		if t, ok := o.(T); ok {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		var zero T
		return zero, fmt.Errorf("%d objects of type %T, want 1", len(found), zero)
	}
	return found[0], nil
}

func TestOverlaysRenderStrictly(t *testing.T) {
	want := map[string][]string{
		podSidecar: {"Deployment"},
		pool:       {"Deployment", "HorizontalPodAutoscaler", "Namespace", "NetworkPolicy", "PodDisruptionBudget", "Service"},
	}
	for overlay, kinds := range want {
		t.Run(overlay, func(t *testing.T) {
			var got []string
			for _, o := range renderOnDisk(t, overlay) {
				got = append(got, o.GetObjectKind().GroupVersionKind().Kind)
			}
			slices.Sort(got)
			if !slices.Equal(got, kinds) {
				t.Errorf("kinds rendered: %v, want %v", got, kinds)
			}
		})
	}
}

func TestPoolObjectsAgree(t *testing.T) {
	if err := errors.Join(checkPool(renderOnDisk(t, pool))...); err != nil {
		t.Error(err)
	}
}

func TestPodSidecarObjectsAgree(t *testing.T) {
	if err := errors.Join(checkPodSidecar(renderOnDisk(t, podSidecar))...); err != nil {
		t.Error(err)
	}
}

// Every PTC_SIDECAR_ variable the manifests set is a setting the sidecar
// has (docs/OPERATIONS.md documents each flag): a misspelled one would be
// ignored by the binary, not refused.
func TestEnvironmentNamesSettings(t *testing.T) {
	doc, err := os.ReadFile("../../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, overlay := range []string{podSidecar, pool} {
		d, err := only[*appsv1.Deployment](renderOnDisk(t, overlay))
		if err != nil {
			t.Fatal(err)
		}
		if err := checkSettingNames(d, string(doc)); err != nil {
			t.Errorf("%s: %v", overlay, err)
		}
	}
}

// The checks fail on what they are for: each case writes an overlay over
// the real base and pool in memory that gets one thing wrong.
func TestChecksCatchMistakes(t *testing.T) {
	cases := []struct {
		name  string
		patch string // a strategic merge patch of the pool's objects
		want  string // in the error
	}{
		{"unknown field", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ptc-sidecar}
spec: {template: {spec: {terminationGracePeriodSecond: 30}}}`, `unknown field "spec.template.spec.terminationGracePeriodSecond"`},
		{"field of the wrong type", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ptc-sidecar}
spec: {template: {spec: {terminationGracePeriodSeconds: "30"}}}`, "terminationGracePeriodSeconds of type int64"},
		{"field in the wrong case", `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ptc-sidecar}
spec: {MaxUnavailable: 1}`, `"spec.MaxUnavailable"`},
		{"probe on a named port", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ptc-sidecar}
spec: {template: {spec: {containers: [{name: ptc-sidecar, livenessProbe: {grpc: {port: grpc}}}]}}}`, "grpc.port of type int32"},
		{"grace period shorter than drain and shutdown", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ptc-sidecar}
spec: {template: {spec: {terminationGracePeriodSeconds: 15}}}`, "terminationGracePeriodSeconds 15s does not cover"},
		{"liveness probe restarts a draining replica", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ptc-sidecar}
spec: {template: {spec: {containers: [{name: ptc-sidecar, livenessProbe: {periodSeconds: 5}}]}}}`, "livenessProbe may restart it 10s after SIGTERM"},
		{"service selects other pods", `
apiVersion: v1
kind: Service
metadata: {name: ptc-sidecar}
spec: {selector: {app.kubernetes.io/name: ptc-agent}}`, "Service ptc-sidecar: selector"},
		{"probe on another port", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ptc-sidecar}
spec: {template: {spec: {containers: [{name: ptc-sidecar, readinessProbe: {grpc: {port: 50052}}}]}}}`, "readinessProbe: gRPC port 50052"},
		{"autoscaler of another Deployment", `
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: ptc-sidecar}
spec: {scaleTargetRef: {name: ptc-agent}}`, "scales Deployment ptc-agent"},
		{"disruption budget of other pods", `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ptc-sidecar}
spec: {selector: {matchLabels: {app.kubernetes.io/name: other}}}`, "PodDisruptionBudget ptc-sidecar: selector"},
		{"drain delay misspelled", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: ptc-sidecar}
spec: {template: {spec: {containers: [{name: ptc-sidecar, env: [{name: PTC_SIDECAR_DRAIN_DELAI, value: 5s}]}]}}}`, "PTC_SIDECAR_DRAIN_DELAI"},
	}
	doc, err := os.ReadFile("../../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := copyToMemory(t, "base", pool)
			fs.WriteFile("/mistake/kustomization.yaml", []byte("resources: [../overlays/pool]\npatches: [{path: patch.yaml}]\n"))
			fs.WriteFile("/mistake/patch.yaml", []byte(tc.patch))
			objects, err := render(fs, "/mistake")
			if err == nil {
				var errs []error
				errs = checkPool(objects)
				if d, derr := only[*appsv1.Deployment](objects); derr == nil {
					errs = append(errs, checkSettingNames(d, string(doc)))
				}
				err = errors.Join(errs...)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// copyToMemory copies the files of the directories below this one into
// an in-memory file system, at the same paths from its root.
func copyToMemory(t *testing.T, dirs ...string) filesys.FileSystem {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return fs.WriteFile("/"+filepath.ToSlash(path), data)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return fs
}

// checkPool checks what strict decoding cannot: that the pool's objects
// name and select each other, and that the Deployment's pods are
// hardened, probed and given time to drain.
func checkPool(objects []runtime.Object) []error {
	d, err := only[*appsv1.Deployment](objects)
	if err != nil {
		return []error{err}
	}
	svc, err1 := only[*corev1.Service](objects)
	hpa, err2 := only[*autoscalingv2.HorizontalPodAutoscaler](objects)
	pdb, err3 := only[*policyv1.PodDisruptionBudget](objects)
	np, err4 := only[*networkingv1.NetworkPolicy](objects)
	ns, err5 := only[*corev1.Namespace](objects)
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return []error{err}
	}
	errs := checkDeployment(d)
	pod := d.Spec.Template.Spec
	podLabels := labels.Set(d.Spec.Template.Labels)
	sidecar, err := container(pod.Containers, sidecarName)
	if err != nil {
		return append(errs, err)
	}
	grpcPort, err := namedPort(sidecar, "grpc")
	if err != nil {
		return append(errs, err)
	}
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if d.Name != sidecarName {
		fail("Deployment %s, want %s", d.Name, sidecarName)
	}
	if d.Spec.Replicas != nil {
		fail("Deployment %s: replicas %d set, which would reset the autoscaler's count on every apply", d.Name, *d.Spec.Replicas)
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		fail("Deployment %s: the service account token is mounted; the sidecar never calls the API", d.Name)
	}
	if delay, err := envDuration(sidecar, "PTC_SIDECAR_DRAIN_DELAY", 0); err != nil || delay <= 0 {
		fail("Deployment %s: a pool's replica needs a drain delay: %v, %v", d.Name, delay, err)
	}

	for _, o := range objects {
		m, ok := o.(interface{ GetNamespace() string })
		if _, isNS := o.(*corev1.Namespace); ok && !isNS && m.GetNamespace() != ns.Name {
			fail("%s in namespace %q, want %q", o.GetObjectKind().GroupVersionKind().Kind, m.GetNamespace(), ns.Name)
		}
	}

	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		fail("Service %s: clusterIP %q; want None (headless), for the clients' balancing", svc.Name, svc.Spec.ClusterIP)
	}
	if svc.Spec.PublishNotReadyAddresses {
		fail("Service %s: publishes not-ready addresses, draining replicas among them", svc.Name)
	}
	if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
		fail("Service %s: selector %v does not select the Deployment's pods %v", svc.Name, svc.Spec.Selector, podLabels)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != grpcPort || !targets(svc.Spec.Ports[0].TargetPort.String(), sidecar, grpcPort) {
		fail("Service %s: ports %v, want the container's gRPC port %d", svc.Name, svc.Spec.Ports, grpcPort)
	}

	ref := hpa.Spec.ScaleTargetRef
	if ref.Kind != "Deployment" || ref.APIVersion != "apps/v1" || ref.Name != d.Name {
		fail("HorizontalPodAutoscaler %s: scales %s %s (%s), want Deployment %s (apps/v1)", hpa.Name, ref.Kind, ref.Name, ref.APIVersion, d.Name)
	}
	if len(hpa.Spec.Metrics) == 0 || hpa.Spec.Metrics[0].Resource == nil || hpa.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU {
		fail("HorizontalPodAutoscaler %s: want a CPU resource metric", hpa.Name)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 {
		fail("HorizontalPodAutoscaler %s: fewer than 2 replicas at least: losing one would lose the pool", hpa.Name)
	}
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		if c.Resources.Requests.Cpu().IsZero() {
			fail("container %s: no CPU request, against which the autoscaler measures utilization", c.Name)
		}
	}

	if sel, err := asSelector(pdb.Spec.Selector); err != nil || !sel.Matches(podLabels) {
		fail("PodDisruptionBudget %s: selector %v does not select the Deployment's pods %v (%v)", pdb.Name, pdb.Spec.Selector, podLabels, err)
	}

	if sel, err := asSelector(&np.Spec.PodSelector); err != nil || sel.Empty() || !sel.Matches(podLabels) {
		fail("NetworkPolicy %s: podSelector %v does not select the Deployment's pods %v (%v)", np.Name, np.Spec.PodSelector, podLabels, err)
	}
	for _, rule := range np.Spec.Ingress {
		for _, peer := range rule.From {
			if peer.NamespaceSelector == nil || len(peer.NamespaceSelector.MatchLabels) == 0 || peer.IPBlock != nil {
				fail("NetworkPolicy %s: admits %v, want only namespaces named by label", np.Name, peer)
			}
		}
		for _, p := range rule.Ports {
			if p.Port == nil || !targets(p.Port.String(), sidecar, grpcPort) {
				fail("NetworkPolicy %s: port %v is not the container's gRPC port %d", np.Name, p.Port, grpcPort)
			}
		}
	}
	if len(np.Spec.Ingress) == 0 {
		fail("NetworkPolicy %s: admits no one", np.Name)
	}
	return errs
}

// checkPodSidecar checks the agent pod: the sidecar is a native sidecar
// container, and the agent is told its address.
func checkPodSidecar(objects []runtime.Object) []error {
	d, err := only[*appsv1.Deployment](objects)
	if err != nil {
		return []error{err}
	}
	errs := checkDeployment(d)
	pod := d.Spec.Template.Spec
	sidecar, err := container(pod.InitContainers, sidecarName)
	if err != nil {
		return append(errs, err)
	}
	if sidecar.RestartPolicy == nil || *sidecar.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		errs = append(errs, fmt.Errorf("init container %s: not a native sidecar (restartPolicy Always)", sidecar.Name))
	}
	if _, err := container(pod.Containers, sidecarName); err == nil {
		errs = append(errs, fmt.Errorf("%s is among the containers too", sidecarName))
	}
	grpcPort, err := namedPort(sidecar, "grpc")
	if err != nil {
		return append(errs, err)
	}
	agent, err := container(pod.Containers, "agent")
	if err != nil {
		return append(errs, err)
	}
	if addr := envValue(agent, "PTC_SIDECAR_ADDR"); addr != fmt.Sprintf("127.0.0.1:%d", grpcPort) {
		errs = append(errs, fmt.Errorf("agent: PTC_SIDECAR_ADDR %q, want the sidecar's port on loopback, 127.0.0.1:%d", addr, grpcPort))
	}
	return errs
}

// checkDeployment checks what both shapes must have: a selector of the
// pods' labels, the restricted Pod Security profile, gRPC health probes on
// the sidecar's port, and a grace period that covers the drain and the
// shutdown.
func checkDeployment(d *appsv1.Deployment) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	pod := d.Spec.Template.Spec
	if sel, err := asSelector(d.Spec.Selector); err != nil || sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		fail("Deployment %s: selector %v does not select its own pods %v (%v)", d.Name, d.Spec.Selector, d.Spec.Template.Labels, err)
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		fail("Deployment %s: the pod must run as non-root with the RuntimeDefault seccomp profile", d.Name)
	}
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		sc := c.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil ||
			len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0 {
			fail("container %s: want allowPrivilegeEscalation false and every capability dropped", c.Name)
		}
		if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Memory().IsZero() {
			fail("container %s: want a memory request and limit", c.Name)
		}
	}
	sidecar, err := container(append(pod.InitContainers, pod.Containers...), sidecarName)
	if err != nil {
		return append(errs, err)
	}
	if sc := sidecar.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		fail("container %s: want a read-only root filesystem", sidecar.Name)
	}
	grpcPort, err := namedPort(sidecar, "grpc")
	if err != nil {
		return append(errs, err)
	}
	if listen := envValue(sidecar, "PTC_SIDECAR_LISTEN"); listen != fmt.Sprintf("0.0.0.0:%d", grpcPort) {
		fail("container %s: PTC_SIDECAR_LISTEN %q, want 0.0.0.0:%d, the gRPC port on every interface (the kubelet probes from outside the pod)", sidecar.Name, listen, grpcPort)
	}
	for name, p := range map[string]*corev1.Probe{"startupProbe": sidecar.StartupProbe, "readinessProbe": sidecar.ReadinessProbe, "livenessProbe": sidecar.LivenessProbe} {
		switch {
		case p == nil || p.GRPC == nil:
			fail("container %s: %s: want a gRPC health probe", sidecar.Name, name)
		case p.GRPC.Port != grpcPort:
			fail("container %s: %s: gRPC port %d, want the container's gRPC port %d", sidecar.Name, name, p.GRPC.Port, grpcPort)
		}
	}
	drain, err1 := envDuration(sidecar, "PTC_SIDECAR_DRAIN_DELAY", 0)
	shutdown, err2 := envDuration(sidecar, "PTC_SIDECAR_SHUTDOWN_TIMEOUT", 10*time.Second)
	if err := errors.Join(err1, err2); err != nil {
		return append(errs, err)
	}
	grace := 30 * time.Second // Kubernetes' default
	if pod.TerminationGracePeriodSeconds != nil {
		grace = time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	}
	if grace <= drain+shutdown+exitGrace {
		fail("Deployment %s: terminationGracePeriodSeconds %v does not cover the drain delay %v + the shutdown timeout %v + %v", d.Name, grace, drain, shutdown, exitGrace)
	}
	// Health answers NOT_SERVING from SIGTERM on, so the liveness probe
	// fails throughout the drain and the shutdown; it must not restart the
	// container before they end.
	if live := sidecar.LivenessProbe; live != nil {
		threshold, period := live.FailureThreshold, live.PeriodSeconds
		if threshold == 0 {
			threshold = 3 // Kubernetes' default
		}
		if period == 0 {
			period = 10 // Kubernetes' default
		}
		if kill := time.Duration(threshold-1) * time.Duration(period) * time.Second; kill <= drain+shutdown+exitGrace {
			fail("container %s: livenessProbe may restart it %v after SIGTERM, before the drain delay %v + the shutdown timeout %v + %v end", sidecar.Name, kill, drain, shutdown, exitGrace)
		}
	}
	return errs
}

// checkSettingNames checks that each PTC_SIDECAR_ variable of the sidecar
// names a flag that doc documents.
func checkSettingNames(d *appsv1.Deployment, doc string) error {
	pod := d.Spec.Template.Spec
	sidecar, err := container(append(pod.InitContainers, pod.Containers...), sidecarName)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range sidecar.Env {
		name, ok := strings.CutPrefix(e.Name, "PTC_SIDECAR_")
		if !ok {
			continue
		}
		flag := "`--" + strings.ToLower(strings.ReplaceAll(name, "_", "-")) + "`"
		if !strings.Contains(doc, flag) {
			errs = append(errs, fmt.Errorf("container %s: %s is no setting (docs/OPERATIONS.md has no %s)", sidecar.Name, e.Name, flag))
		}
	}
	return errors.Join(errs...)
}

func container(cs []corev1.Container, name string) (corev1.Container, error) {
	for _, c := range cs {
		if c.Name == name {
			return c, nil
		}
	}
	return corev1.Container{}, fmt.Errorf("no container %s", name)
}

func namedPort(c corev1.Container, name string) (int32, error) {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort, nil
		}
	}
	return 0, fmt.Errorf("container %s: no port named %s", c.Name, name)
}

// targets reports whether port, a number or a port's name, is the
// container's port number want.
func targets(port string, c corev1.Container, want int32) bool {
	if port == fmt.Sprint(want) {
		return true
	}
	n, err := namedPort(c, port)
	return err == nil && n == want
}

func envValue(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// envDuration is the duration a variable of c sets, or def when it is not
// set or 0 (a setting's default).
func envDuration(c corev1.Container, name string, def time.Duration) (time.Duration, error) {
	v := envValue(c, name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("container %s: %s=%q: %w", c.Name, name, v, err)
	}
	if d == 0 {
		return def, nil
	}
	return d, nil
}

// asSelector is a label selector of an API object; nil selects nothing.
func asSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Nothing(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}
