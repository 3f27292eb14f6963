package lang

// learnZH holds the messages of lessons ('crdlab learn', the task step) in
// Chinese; they join zh when the package loads. A file of their own keeps
// them apart from the scenarios' and the CLI's.
var learnZH = map[string]string{
	// The task step (scenarios).
	"task: %s":                        "任务: %s",
	"Your task":                       "你的任务",
	"Hint %d/%d":                      "提示 %d/%d",
	"not yet":                         "还没有",
	"this task has no hints":          "这个任务没有提示",
	"no more hints: all %d are shown": "没有更多提示了: %d 条都已显示",
	"done in an earlier session":      "已在之前的学习中完成",
	"done (no write of yours is on the timeline: it held with what was there)": "完成 (时间线上没有你的写操作: 集群里已有的对象已经满足检查)",
	"done. What happened meanwhile:":                                           "完成。这期间发生了这些:",
	"done. What your writes did:":                                              "完成。你的写操作引发了这些:",
}

func init() {
	for k, v := range learnZH {
		zh[k] = v
	}
}
