package server

import (
	"testing"

	"github.com/crdlab/crdlab/lab"
	"github.com/crdlab/crdlab/lab/lang"
)

// Each phase of a lab's start is worded here, in English as 'crdlab up'
// has always said it, and in Chinese in full.
func TestEveryPhaseIsWorded(t *testing.T) {
	samples := map[lab.Phase]struct {
		p      lab.Progress
		en, zh string
	}{
		lab.PhaseControlPlaneStarting: {lab.Progress{}, "starting etcd and kube-apiserver", "正在启动 etcd 和 kube-apiserver"},
		lab.PhaseEtcdTemplate: {lab.Progress{},
			"bootstrapping an etcd template for later labs (once per Kubernetes version)",
			"正在为以后的实验环境准备一个 etcd 模板（每个 Kubernetes 版本只做一次）"},
		lab.PhaseAPIServerReady: {lab.Progress{Endpoint: "https://127.0.0.1:1"},
			"kube-apiserver ready at https://127.0.0.1:1", "kube-apiserver 已就绪：https://127.0.0.1:1"},
		lab.PhaseControllersStarting: {lab.Progress{},
			"starting kube-controller-manager and kube-scheduler", "正在启动 kube-controller-manager 和 kube-scheduler"},
		lab.PhaseNodesReady: {lab.Progress{Nodes: 3}, "3 simulated nodes ready", "3 个模拟节点已就绪"},
		lab.PhaseAggregatedAPIReady: {lab.Progress{},
			"aggregated API server ready: metrics.k8s.io, lab.crdlab.dev", "聚合 API 服务器已就绪：metrics.k8s.io、lab.crdlab.dev"},
		lab.PhaseOperatorsRunning: {lab.Progress{Operators: []string{"webapp-operator", "redis-operator"}, Webhooks: "127.0.0.1:9443"},
			"sample operators running: webapp-operator, redis-operator; the WebApp's webhooks served on https://127.0.0.1:9443",
			"示例 Operator 已运行：webapp-operator, redis-operator；WebApp 的 webhook 在 https://127.0.0.1:9443 上提供服务"},
		lab.PhaseControllersHealthy: {lab.Progress{},
			"kube-controller-manager and kube-scheduler healthy", "kube-controller-manager 和 kube-scheduler 运行正常"},
	}
	for _, phase := range lab.Phases() {
		s, ok := samples[phase]
		if !ok {
			t.Errorf("phase %q has no sample here: add its English and Chinese", phase)
			continue
		}
		s.p.Phase = phase
		if got := progressText(lang.EN, s.p); got != s.en {
			t.Errorf("phase %q in English: %q, want %q", phase, got, s.en)
		}
		if got := progressText(lang.ZH, s.p); got != s.zh {
			t.Errorf("phase %q in Chinese: %q, want %q", phase, got, s.zh)
		}
	}
}
