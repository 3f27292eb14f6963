package lang

// timelineZH holds the words the timeline adds to its lines (lab/timeline:
// DetailIn) in Chinese: a deletion, a Pod's state (with stateZH's words),
// a reconcile pass's account, a webhook call's. The objects, fields and
// values in a line, and what Kubernetes or a webhook said, stay as they
// are. They join zh when the package loads.
var timelineZH = map[string]string{
	// A write (lab/timeline: diff.go).
	"deletion requested (graceful)": "已请求删除（优雅终止）",
	"confirmed by %s":               "由 %s 确认",
	"+%d more":                      "另有 %d 项",
	"not ready":                     "未就绪",
	"terminating":                   "终止中",
	"(late: arrived after the lines that follow it)": "（迟到：比排在它后面的行来得晚）",

	// A reconcile pass (lab/server: passes.go; controllers: trace.go).
	"; ":                                     "；",
	"no change":                              "没有改动",
	"%s (refused: %s)":                       "%s（被拒绝：%s）",
	"error: %s (terminal: not retried)":      "出错：%s（终止性错误，不再重试）",
	"error: %s (retried with back-off)":      "出错：%s（按退避间隔重试）",
	"requeue after %s":                       "%s 后重新入队",
	"requeue (with back-off)":                "重新入队（按退避间隔）",
	"woken by a requeue or a related object": "触发：重新入队或相关对象的变化",
	"woken by %s":                            "触发：%s",
	"%s created":                             "%s 被创建",
	"%s spec changed":                        "%s 的 spec 有变化",
	"%s status or metadata updated":          "%s 的 status 或 metadata 有更新",
	"%s being deleted":                       "%s 正在被删除",
	"%s deleted":                             "%s 被删除",
	"%s event":                               "%s 的事件",
	"in %s":                                  "耗时 %s",

	// A webhook call (lab/timeline: webhook.go).
	"validate %s of %s, asked by %s":   "校验 %[2]s 的 %[1]s 请求，发起者：%[3]s",
	"default %s of %s, asked by %s":    "为 %[2]s 的 %[1]s 请求设置默认值，发起者：%[3]s",
	"allowed":                          "允许",
	"allowed, patch %s":                "允许，补丁：%s",
	"denied: %s":                       "拒绝：%s",
	"%s → %s, asked by kube-apiserver": "%s → %s，发起者：kube-apiserver",
	"failed: %s":                       "失败：%s",
}

func init() {
	for k, v := range timelineZH {
		zh[k] = v
	}
}
