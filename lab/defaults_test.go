package lab

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
	kcm "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kcmoptions "k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds"

	"github.com/crdlab/crdlab/lab/internal/controlplane"
	"github.com/crdlab/crdlab/lab/internal/kubedefaults"
	"github.com/crdlab/crdlab/lab/labtest/control"
)

// A fact is a wait the lab shortens: its value in a lab, Kubernetes'
// default, and the words that name it in a text.
type fact struct {
	name     string
	lab, def time.Duration
	words    *regexp.Regexp
}

// controllerManagerOptions are kube-controller-manager's options as its
// command line parses args.
func controllerManagerOptions(t *testing.T, args []string) *kcmoptions.KubeControllerManagerOptions {
	t.Helper()
	o, err := kcmoptions.NewKubeControllerManagerOptions()
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("kube-controller-manager", pflag.ContinueOnError)
	for _, f := range o.Flags(kcm.KnownControllers(), kcm.ControllersDisabledByDefault(), kcm.ControllerAliases()).FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatalf("kube-controller-manager %q: %v", args, err)
	}
	return o
}

// facts reads the lab's flags and the defaults of the Kubernetes it
// links: kube-controller-manager's options as its command line parses
// them, and the apiserver's DefaultTolerationSeconds admission plugin.
func facts(t *testing.T) []fact {
	t.Helper()
	lab, def := controllerManagerOptions(t, timingFlags(3)), controllerManagerOptions(t, nil)

	var api controlplane.APIServer // its --default-unreachable-toleration-seconds (TestControlPlaneCommandLines)
	if err := (&nodes{lab: &Lab{}}).configureAPIServer(&api); err != nil {
		t.Fatal(err)
	}
	labToleration, err := strconv.Atoi(api.NodeFailureToleration)
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	defaulttolerationseconds.RegisterFlags(fs)
	defToleration, err := strconv.Atoi(fs.Lookup("default-unreachable-toleration-seconds").DefValue)
	if err != nil {
		t.Fatal(err)
	}

	return []fact{{
		name: "--node-monitor-grace-period",
		lab:  lab.NodeLifecycleController.NodeMonitorGracePeriod.Duration,
		def:  def.NodeLifecycleController.NodeMonitorGracePeriod.Duration,
		// The node monitor's grace, not a Pod's termination grace.
		words: regexp.MustCompile(`(?i)node monitor's grace period|node-monitor-grace-period|节点监视的宽限期`),
	}, {
		name:  "--default-unreachable-toleration-seconds",
		lab:   time.Duration(labToleration) * time.Second,
		def:   time.Duration(defToleration) * time.Second,
		words: regexp.MustCompile(`(?i)tolerate that taint|tolerations the apiserver adds|容忍这个污点`),
	}, {
		name:  "--horizontal-pod-autoscaler-sync-period",
		lab:   lab.HPAController.HorizontalPodAutoscalerSyncPeriod.Duration,
		def:   def.HPAController.HorizontalPodAutoscalerSyncPeriod.Duration,
		words: regexp.MustCompile(`(?i)sync period|同步周期`),
	}, {
		name:  "--horizontal-pod-autoscaler-downscale-stabilization",
		lab:   lab.HPAController.HorizontalPodAutoscalerDownscaleStabilizationWindow.Duration,
		def:   def.HPAController.HorizontalPodAutoscalerDownscaleStabilizationWindow.Duration,
		words: regexp.MustCompile(`(?i)stabilization window|稳定窗口`),
	}}
}

// duration is a duration as a text writes it: 16 s, 5 minutes, 50 秒.
var duration = regexp.MustCompile(`(\d+)\s*(seconds?|minutes?|min|s|秒钟?|分钟)\b|(\d+)\s*(秒|分钟)`)

func durations(s string) []time.Duration {
	var out []time.Duration
	for _, m := range duration.FindAllStringSubmatch(s, -1) {
		n, unit := m[1], m[2]
		if n == "" {
			n, unit = m[3], m[4]
		}
		v, _ := strconv.Atoi(n)
		d := time.Duration(v) * time.Second
		if strings.HasPrefix(unit, "min") || unit == "分钟" {
			d = time.Duration(v) * time.Minute
		}
		out = append(out, d)
	}
	return out
}

// statedTexts returns the texts a learner reads that may state a default:
// every string of the scenarios and lessons, every Markdown page; each
// with its whitespace collapsed, so that a wrapped line reads as one.
func statedTexts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	space := regexp.MustCompile(`\s+`)
	yamls, _ := filepath.Glob("../scenarios/builtin/*.yaml")
	lessons, _ := filepath.Glob("../scenarios/lessons/*.yaml")
	for _, f := range append(yamls, lessons...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, " ") {
				out[fmt.Sprintf("%s:%d", f, n.Line)] = space.ReplaceAllString(n.Value, " ")
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(&doc)
	}
	docs, _ := filepath.Glob("../docs/*.md")
	zh, _ := filepath.Glob("../docs/zh/*.md")
	for _, f := range append(append(docs, zh...), "../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = space.ReplaceAllString(string(b), " ")
	}
	return out
}

// mentions returns, for each place a text names the fact, what follows it
// up to the end of its parenthesis or sentence.
func mentions(f fact, s string) []string {
	var out []string
	for _, loc := range f.words.FindAllStringIndex(s, -1) {
		rest := s[loc[0]:]
		if end := strings.IndexAny(rest, ")）。;；"); end >= 0 {
			rest = rest[:end]
		}
		if i := strings.Index(rest, ". "); i >= 0 {
			rest = rest[:i]
		}
		out = append(out, rest)
	}
	return out
}

// wrongNumbers returns what is wrong with the numbers of a mention: a
// mention that states a number states the lab's value and the default,
// and nothing else.
func wrongNumbers(f fact, mention string) string {
	ds := durations(mention)
	if len(ds) == 0 {
		return ""
	}
	for _, d := range ds {
		if d != f.lab && d != f.def {
			return fmt.Sprintf("%s: %s is neither the lab's value (%s) nor Kubernetes' default (%s)", f.name, d, f.lab, f.def)
		}
	}
	if !slices.Contains(ds, f.lab) || !slices.Contains(ds, f.def) {
		return fmt.Sprintf("%s: state both the lab's value (%s) and Kubernetes' default (%s)", f.name, f.lab, f.def)
	}
	return ""
}

// Every text that states how long the lab or Kubernetes waits (a failed
// node's grace period, the tolerations of its taint, the HPA's sync period
// and downscale stabilization) states the lab's flag and the default of
// the Kubernetes the lab runs; each is stated in English and in Chinese.
func TestTextsStateTheLabsTimingAndTheDefaults(t *testing.T) {
	texts := statedTexts(t)
	for _, f := range facts(t) {
		if f.lab == f.def {
			t.Errorf("%s: the lab's value is the default (%s): say so in the texts instead", f.name, f.def)
		}
		stated := 0
		for where, s := range texts {
			for _, m := range mentions(f, s) {
				if problem := wrongNumbers(f, m); problem != "" {
					t.Errorf("%s: %s\n\t%s", where, problem, m)
				} else if len(durations(m)) > 0 {
					stated++
				}
			}
		}
		if stated < 2 {
			t.Errorf("%s: stated with numbers in %d texts, want English and Chinese at least", f.name, stated)
		}
	}
}

// The check finds a wrong number.
func TestWrongNumbers(t *testing.T) {
	f := fact{name: "--node-monitor-grace-period", lab: 16 * time.Second, def: 50 * time.Second,
		words: regexp.MustCompile(`node monitor's grace period|节点监视的宽限期`)}
	for s, wrong := range map[string]bool{
		"after the node monitor's grace period (16 s in a lab, 50 s by default) the": false,
		"after the node monitor's grace period (16 s in a lab, 40 s by default) the": true,
		"过了节点监视的宽限期（实验环境里 16 秒，默认 50 秒），节点":                                          false,
		"过了节点监视的宽限期（实验环境里 16 秒，默认 40 秒），节点":                                          true,
		"过了节点监视的宽限期（默认 50 秒），节点":                                                     true,
		"after the node monitor's grace period the node is tainted":                  false,
	} {
		ms := mentions(f, s)
		if len(ms) != 1 {
			t.Fatalf("%q: mentions %q", s, ms)
		}
		if got := wrongNumbers(f, ms[0]) != ""; got != wrong {
			t.Errorf("%q: wrong %v, want %v", s, got, wrong)
		}
	}
}

// The eviction rate the texts state: the lab's for a thousand nodes (its
// flag, as kube-controller-manager parses it) and Kubernetes' default, in
// every text that names --node-eviction-rate with a number.
func TestTextsStateTheEvictionRate(t *testing.T) {
	parse := func(args []string) float32 {
		return controllerManagerOptions(t, args).NodeLifecycleController.NodeEvictionRate
	}
	if def := parse(nil); def != float32(DefaultEvictionRate) {
		t.Errorf("Kubernetes' --node-eviction-rate is %v, DefaultEvictionRate says %v", def, DefaultEvictionRate)
	}
	if got := parse(timingFlags(3)); got != float32(DefaultEvictionRate) {
		t.Errorf("a lab of 3 nodes: --node-eviction-rate %v, want Kubernetes' default", got)
	}
	if got := parse(timingFlags(1000)); got != 20 || EvictionRate(1000) != 20 {
		t.Errorf("a lab of 1000 nodes: --node-eviction-rate %v, want 20", got)
	}
	stated := 0
	for where, s := range statedTexts(t) {
		for _, loc := range regexp.MustCompile(`--node-eviction-rate`).FindAllStringIndex(s, -1) {
			near := s[max(0, loc[0]-200):min(len(s), loc[1]+200)]
			if !strings.Contains(near, "0.1") {
				t.Errorf("%s: names --node-eviction-rate without Kubernetes' default, 0.1, near it:\n\t%s", where, near)
			}
			if strings.Contains(near, "20") {
				stated++
			}
		}
	}
	if stated < 2 {
		t.Errorf("the lab's rate for a thousand nodes (20) is stated in %d texts, want English and Chinese at least", stated)
	}
}

// The controller-manager's controllers and the apiserver's admission
// plugins are kubedefaults' lists (checked against each minor's defaults
// in lab/internal/kubedefaults/upstream), as the components parse the
// flags, and the lab sets no feature gate that decides them: below
// ScaleNodes none (each is its minor's default, which that check assumes),
// and from it only scaleFeatureGates (kube-apiserver's watch cache).
func TestFlagsAreTheRunLists(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "certs"), 0o700); err != nil {
		t.Fatal(err)
	}
	cp := &controlplane.Plane{
		Own:  true,
		Etcd: controlplane.Etcd{Path: "/bin/etcd", DataDir: filepath.Join(dir, "data"), LogPath: filepath.Join(dir, "etcd.log")},
		APIServer: controlplane.APIServer{Path: "/bin/kube-apiserver", Port: 6443, CertDir: filepath.Join(dir, "apicerts"),
			LogPath: filepath.Join(dir, "api.log")},
	}
	if err := cp.Prepare(); err != nil {
		t.Fatal(err)
	}
	if err := cp.Build(nil, time.Minute); err != nil {
		t.Fatal(err)
	}
	l := &Lab{dir: control.Dir(dir), cp: cp, opts: Options{Nodes: 3}}
	flags, err := controllerManagerFlags(l, filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	if got := controllerManagerOptions(t, flags).Generic.Controllers; !slices.Equal(got, kubedefaults.Controllers) {
		t.Errorf("kube-controller-manager --controllers %q, want kubedefaults.Controllers %q", got, kubedefaults.Controllers)
	}
	api := cp.APIServer.Process().Args
	want := "--disable-admission-plugins=" + strings.Join(kubedefaults.DisabledAdmissionPlugins(), ",")
	if !slices.Contains(api, want) {
		t.Errorf("kube-apiserver's flags %q lack %s", api, want)
	}
	for name, args := range map[string][]string{"kube-apiserver": api, "kube-controller-manager": flags} {
		for _, a := range args {
			if strings.HasPrefix(a, "--feature-gates") || strings.HasPrefix(a, "--enable-admission-plugins") || strings.HasPrefix(a, "--admission-control") {
				t.Errorf("%s: %s: the lab runs its minor's defaults but for kubedefaults' lists", name, a)
			}
		}
	}
}
