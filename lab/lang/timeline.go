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

	// A webhook call that gave no usable answer (lab/timeline: webhook.go,
	// and the lab's webhook front: lab/internal/webhooks).
	"answered something that is not an AdmissionReview: %s":               "返回的不是 AdmissionReview：%s",
	"answered an AdmissionReview without a response":                      "返回的 AdmissionReview 里没有 response",
	"answered for uid %q, not the request's %q":                           "返回的 uid 是 %q，不是请求的 %q",
	"answered something that is not a ConversionReview: %s":               "返回的不是 ConversionReview：%s",
	"answered a ConversionReview without a response":                      "返回的 ConversionReview 里没有 response",
	"answered %d objects for %d":                                          "请求里有 %[2]d 个对象，返回的却是 %[1]d 个",
	"an empty body":                                                       "空的响应体",
	"%s → %s (%d objects)":                                                "%s → %s（%d 个对象）",
	"no answer from %s in time: the apiserver gave up (the webhook's %s)": "%s 没有及时响应：API 服务器已放弃这次调用（webhook 的 %s）",
	"nothing serves on %s (connection refused): start your webhook server there, with the certificate in %s": "%s 上没有服务在监听（连接被拒绝）：请在那里启动你的 webhook 服务器，证书在 %s 里",
	"%s: its certificate is not the lab's (%v): serve with %s and %s of %s":                                  "%[1]s：它的证书不是实验环境签发的（%[2]v）：请用 %[5]s 里的 %[3]s 和 %[4]s 提供服务",
	"calling %s: %v":          "调用 %s 出错：%v",
	"%s answered HTTP %d: %s": "%s 返回了 HTTP %d：%s",
	"the apiserver sent something that is not a review": "API 服务器发来的既不是 AdmissionReview，也不是 ConversionReview",
}

func init() {
	for k, v := range timelineZH {
		zh[k] = v
	}
}
