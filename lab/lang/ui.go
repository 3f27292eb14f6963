package lang

import "maps"

// UIMessages returns the web UI's words in the language, by their English
// text (lab/ui/static: t("...") in app.js, data-t in index.html); {0},
// {1}... stand for the arguments. English has none: the page shows a key
// that has no translation as it is.
func UIMessages(l Lang) map[string]string {
	if l != ZH {
		return map[string]string{}
	}
	return maps.Clone(uiZH)
}

// Actors returns the timeline actors' names in the language, where they
// differ from the actors' own (Actor).
func Actors(l Lang) map[string]string {
	if l != ZH {
		return map[string]string{}
	}
	return maps.Clone(actorZH)
}

// UITranslated reports whether the web UI's message has a translation in
// the language.
func (l Lang) UITranslated(msg string) bool { return l != ZH || uiZH[msg] != "" }

// uiZH holds the web UI's words in Chinese.
var uiZH = map[string]string{
	"arrived late: shown in its place by its revision": "来得晚了：按它的 revision 插回了应有的位置",
	// index.html
	"namespace":        "名称空间",
	"every kind":       "所有类型",
	"follow scenarios": "跟随场景",
	"Show every kind: ServiceAccounts, Secrets, RBAC, EndpointSlices…": "显示所有类型的对象：ServiceAccount、Secret、RBAC、EndpointSlice…",
	"Select the namespace of a scenario while it runs":                 "场景运行时自动切换到它的名称空间",
	"connecting…": "连接中…",
	"language":    "语言",
	"The page's language (remembered in this browser)": "页面语言（这个浏览器会记住）",
	"Objects": "对象",
	"boxes linked by ownerReferences; dashed: the node a Pod runs on": "方框之间的连线是属主引用（ownerReferences）；虚线：Pod 所在的节点",
	"Scenario":            "场景",
	"Timeline":            "时间线",
	"actor":               "参与者",
	"all":                 "全部",
	"object":              "对象",
	"this namespace only": "只看这个名称空间",
	"lanes over":          "泳道时间窗",
	"10 s":                "10 秒",
	"1 min":               "1 分钟",
	"5 min":               "5 分钟",
	"clear filters":       "清除筛选",
	"Close":               "关闭",

	// app.js
	"live":                           "已连接",
	"disconnected, retrying…":        "连接断开，正在重试…",
	"(cluster-scoped)":               "（集群作用域）",
	"nothing cluster-scoped to show": "没有可显示的集群作用域对象",
	"namespace {0} is empty: try kubectl create deployment web --image=nginx --replicas=3": "名称空间 {0} 是空的：试试 kubectl create deployment web --image=nginx --replicas=3",
	"finalizers: {0}":                        "finalizers: {0}",
	"{0} change(s) seen; click for its page": "已看到 {0} 次修改；点击查看它的详情页",
	"finalizer":                              "finalizer",
	"lanes per actor: nothing happened in this window": "按参与者分泳道：这个时间窗内什么也没发生",
	"It was there when crdlab started watching.":       "crdlab 开始 watch 时它就已经存在。",
	"Deleted.": "已删除。",
	"No diff: the version before it is not kept.":                                      "没有差异：之前的版本没有保留。",
	"No diff: a Pod shown in a group keeps the versions of its last two changes only.": "没有差异：合成一组显示的 Pod 只保留最近两次修改后的版本。",
	"manager":                               "管理者（manager）",
	"who":                                   "谁",
	"operation":                             "操作",
	"subresource":                           "子资源",
	"time":                                  "时间",
	"show only its timeline lines":          "只看它的时间线",
	"namespace {0}":                         "名称空间 {0}",
	"deleted":                               "已删除",
	"History: {0} change(s), newest first":  "历史：{0} 次修改，最新的在前",
	" ({0} older not kept)":                 "（更早的 {0} 次没有保留）",
	"Managed fields: who owns which fields": "托管字段（managedFields）：哪个字段归谁管",
	"YAML now":                              "当前的 YAML",
	"no such object: it was never seen, or deleted long ago": "没有这个对象：从来没有见过它，或者它早已被删除",

	"PASSED":  "通过",
	"FAILED":  "失败",
	"SKIPPED": "跳过",
	"RUNNING": "运行中",

	// The course map and the task pane's hint button.
	"course map":     "课程地图",
	"The course map": "课程地图",
	"The lessons in order, the seed's section each teaches, and your progress: crdlab learn LESSON starts one, in a terminal.": "按顺序排列的各课、每一课讲的是种子文本的哪一节，以及你的进度：在终端里运行 crdlab learn LESSON 开始一课。",
	"lesson":                    "课程",
	"title":                     "标题",
	"after":                     "先学",
	"{0} min":                   "{0} 分钟",
	"the seed's section":        "种子文本的小节",
	"tasks done":                "已完成的任务",
	"this lab serves no course": "这个实验环境没有提供课程",
	"next hint":                 "下一条提示",
	"asking the lesson…":        "正在向课程要提示…",
	"No lesson is running: start one in a terminal with crdlab learn LESSON.": "没有正在运行的课程：在终端里运行 crdlab learn LESSON 开始一课。",

	// A big cluster: an owner's Pods as one group, the nodes as a grid.
	"{0} Pods": "{0} 个 Pod",
	"{0} Pods of {1} {2}: click to list them": "{1} {2} 的 {0} 个 Pod：点击列出它们",
	"{0} Pods of {1} {2}":                     "{1} {2} 的 {0} 个 Pod",
	"(no zone)":                               "（无可用区）",
	"{0} nodes, {1} Ready":                    "{0} 个节点，{1} 个就绪",
	"name":                                    "名称",
	"state":                                   "状态",
	"node":                                    "节点",
	"the first {0} of {1}, by name":           "按名称排序，共 {1} 个，列出前 {0} 个",
	"more than {0} Pods of one owner are one box; pick a state to list its Pods": "同一个属主的 Pod 超过 {0} 个时合成一个方框；选一个状态，列出处于该状态的 Pod",
	"no such group: its owner has no Pods now":                                   "没有这个分组：它的属主现在没有 Pod",
}

// stateZH holds the words of an object's state, as the lab says them (lab/ui's
// summary, the timeline's Pod status: "Running, Ready"): the web UI and the
// terminal say them alike. They join uiZH and zh when the package loads.
var stateZH = map[string]string{
	"Running":               "运行中",
	"Pending":               "等待中",
	"Succeeded":             "已成功",
	"Failed":                "失败",
	"Unknown":               "未知",
	"Ready":                 "就绪",
	"not Ready":             "未就绪",
	"NotReady":              "未就绪",
	"not scheduled":         "未调度",
	"SchedulingDisabled":    "禁止调度",
	"Terminating":           "终止中",
	"Complete":              "已完成",
	"Active":                "活跃",
	"Bound":                 "已绑定",
	"Available":             "可用",
	"not Available":         "不可用",
	"Released":              "已释放",
	"Lost":                  "丢失",
	"Ready {0}/{1}":         "就绪 {0}/{1}",
	"Active {0}":            "活跃 {0}",
	"succeeded {0}":         "成功 {0}",
	"held by finalizer {0}": "被 finalizer {0} 挡住删除",
	", ":                    "，",
}

func init() {
	for k, v := range stateZH {
		zh[k] = v
		uiZH[k] = v
	}
}
