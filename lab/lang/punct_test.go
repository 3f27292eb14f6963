package lang

import (
	"strings"
	"testing"
)

// The check finds the mixed punctuation of text built at run time.
func TestMixedPunctuation(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"删除 pods (app=web)（随机挑一个）", 1},
		{"删除 pods（app=web）（随机挑一个）", 0},
		{"通过 delete-pod (1.2s)", 1},
		{"通过 delete-pod（1.2s）", 0},
		{"节点 lab-node-1: kubelet 已启动", 1},
		{"节点 lab-node-1：kubelet 已启动", 0},
		{"  pid:        42\n  API 地址：  https://127.0.0.1:6443", 1},
		{"  pid：       42\n  API 地址：  https://127.0.0.1:6443", 0},
		{"  pid:        42\n  endpoint:   https://127.0.0.1:6443", 0}, // English
		{"等待 `kubectl get pods (x)` 的结果", 0},                          // code
		{"在 https://127.0.0.1:8443/a(b) 上提供服务", 0},                    // a URL
	} {
		if got := MixedPunctuation(tc.s); len(got) != tc.want {
			t.Errorf("%q: %d problems %q, want %d", tc.s, len(got), got, tc.want)
		}
	}
}

// The catalog's messages put together as crdlab puts them at run time
// (cmd/crdlab, scenarios, lab/server) have no half-width punctuation in
// Chinese: a step's description with a selector, a step's and a
// scenario's result, a node's line, the status block.
func TestRunTimeTextIsFullWidth(t *testing.T) {
	l := ZH
	for _, out := range []string{
		l.Msgf("delete %s (random one)", l.Msgf("%ss %s", "pod", "app=web")),
		l.Msgf("delete %s (first one)", l.Msgf("%ss %s", "pod", "app=web")),
		l.Msgf("scale %s to %d", l.Msgf("%ss %s", "deployment", "app=web"), 3),
		l.Msgf("  %s %s (%.2fs)\n", "✓", l.Msgf("delete %s", "pod/web"), 1.23),
		l.Msgf("%s %s (%.1fs)\n", l.Msg("PASS"), "delete-pod", 1.2),
		l.Msgf("%s %s: %s (%.1fs)\n", l.Msg("FAIL"), "delete-pod", l.Msgf("step %d (%s) failed", 3, l.Msgf("expect %s to be gone", "pod/solo")), 1.2),
		l.Msgf("%s %s: %s\n", l.Msg("SKIP"), "at-scale", l.Msgf("skipped: step %d failed", 2)),
		l.Msgf("node %s: kubelet started\n", "lab-node-1"),
		l.Msgf("node %s: kubelet stopped\n", "lab-node-1"),
		l.Msgf("controller %s: stopped\n", "webapp-operator"),
		l.Msgf("running against %s (--kubeconfig %s); lab actions are skipped", "https://10.0.0.1:6443", "/home/you/.kube/config"),
		strings.Join([]string{
			l.Msgf("  pid:        %d\n  endpoint:   %s\n  kubeconfig: %s\n", 42, "https://127.0.0.1:6443", "/tmp/s/kubeconfig"),
			l.Msgf("  data dir:   %s\n", "/tmp/data"),
			l.Msgf("  kubernetes: %s\n", "v1.99.1"),
			l.Msgf("  web UI:     %s\n", "http://127.0.0.1:8080/?token=x"),
			l.Msgf("  webhooks:   serve on https://%s:%d, certificate in %s; called through %s\n", "127.0.0.1", 9443, "/tmp/s/certs", "https://127.0.0.1:9444"),
			l.Msgf("  language:   %s\n", "zh"),
			l.Msgf("  uptime:     %s\n", "1m2s"),
		}, ""),
	} {
		if bad := MixedPunctuation(out); len(bad) > 0 {
			t.Errorf("half-width punctuation in Chinese text built at run time: %q\n%s", bad, out)
		}
	}
}
