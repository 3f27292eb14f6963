package lang

// zh holds crdlab's messages in Chinese, by their English text. Write them
// as a Chinese engineer would, in the seed chapter's terms (控制器, 和解循环,
// 自定义资源, 期望状态与当前状态); keep Kubernetes' identifiers in English.
var zh = map[string]string{
	// Steps, as the runner describes them (scenarios/format).
	"narrate":                "旁白",
	"apply %s":               "应用 %s",
	"delete %s":              "删除 %s",
	"delete %s (random one)": "删除 %s (随机挑一个)",
	"delete %s (first one)":  "删除 %s (第一个)",
	"patch %s":               "修补 (patch) %s",
	"scale %s to %d":         "把 %s 扩缩到 %d 个副本",
	"expect %s to match":     "等待 %s 达到期望状态",
	"expect %s to be gone":   "等待 %s 被删除",
	"expect %s: %s":          "等待 %s 满足: %s",
	"get %s":                 "读取 %s",
	"%s is refused":          "%s 被拒绝",
	"stop controller %s":     "停止控制器 %s",
	"start controller %s":    "启动控制器 %s",
	"stop node %s":           "停止节点 %s",
	"start node %s":          "启动节点 %s",
	"wait %s":                "等待 %s",
	"%ss %s":                 "%s (%s)",
	"every %s":               "所有 %s",
}

// actorZH names a timeline actor (lab/internal/actor's words) in Chinese:
// its English name, with a gloss of what it is where one helps.
var actorZH = map[string]string{
	"replicaset":                "replicaset (副本集控制器)",
	"deployment":                "deployment (Deployment 控制器)",
	"statefulset":               "statefulset (StatefulSet 控制器)",
	"daemonset":                 "daemonset (DaemonSet 控制器)",
	"job":                       "job (Job 控制器)",
	"endpointslice":             "endpointslice (EndpointSlice 控制器)",
	"horizontal-pod-autoscaler": "horizontal-pod-autoscaler (水平自动扩缩控制器)",
	"namespace":                 "namespace (命名空间控制器)",
	"node-lifecycle":            "node-lifecycle (节点生命周期控制器)",
	"controller-manager":        "controller-manager (控制器管理器)",
	"scheduler":                 "scheduler (调度器)",
	"apiserver":                 "apiserver (API 服务器)",
	"garbage collector":         "garbage collector (垃圾回收器)",
	"kubelet (simulated)":       "kubelet (模拟的节点代理)",
	"you (kubectl)":             "你 (kubectl)",
	"you (scenario)":            "你 (场景)",
	"webapp-operator":           "webapp-operator (WebApp 控制器)",
	"redis-operator":            "redis-operator (RedisCluster 控制器)",
	"redis-backup-operator":     "redis-backup-operator (RedisBackup 控制器)",
	"aggregated-api":            "aggregated-api (聚合 API 服务器)",
}
