package lang

// learnZH holds the messages of lessons ('crdlab learn', the task step) in
// Chinese; they join zh when the package loads. A file of their own keeps
// them apart from the scenarios' and the CLI's.
var learnZH = map[string]string{
	// The task step (scenarios).
	"task: %s":                        "任务：%s",
	"Your task":                       "你的任务",
	"Hint %d/%d":                      "提示 %d/%d",
	"not yet":                         "还没有",
	"this task has no hints":          "这个任务没有提示",
	"no more hints: all %d are shown": "没有更多提示了：%d 条都已显示",
	"done in an earlier session":      "已在之前的学习中完成",
	"done (no write of yours is on the timeline: it held with what was there)": "完成（时间线上没有你的写操作：集群里已有的对象已经满足检查）",
	"done. What happened meanwhile:":                                           "完成。这期间发生了这些：",
	"done. What your writes did:":                                              "完成。你的写操作引发了这些：",

	// crdlab learn (cmd/crdlab).
	"NAME\tTITLE\tTASKS DONE":            "名称\t标题\t已完成的任务",
	"lesson %d":                          "第 %d 课",
	"about %d min":                       "约 %d 分钟",
	"after %s":                           "先学 %s",
	"the seed: “%s”":                     "种子文本：“%s”",
	"lesson files: %s":                   "课程文件：%s",
	"your kubectl: export KUBECONFIG=%s": "你的 kubectl: export KUBECONFIG=%s",
	"stuck? press Enter for a hint, or run 'crdlab learn hint' in another terminal":             "卡住了？按回车键看提示，或者在另一个终端里运行 crdlab learn hint",
	"%d of %d tasks done in an earlier session: going on from the next (--restart starts over)": "之前已完成 %d/%d 个任务：从下一个继续（--restart 从头开始）",
	"stopped: your progress is kept (%d of %d tasks done); 'crdlab learn %s' goes on":           "已停止：你的进度已保存（已完成 %d/%d 个任务）；运行 crdlab learn %s 继续",
	"no lab running on %s: starting one (crdlab up -d)":                                         "%s 上没有正在运行的实验环境：先启动一个（crdlab up -d）",
	"no task is waiting for you now":                                                            "现在没有等待你完成的任务",
	"the lesson has ended":                                                                      "这一课已经结束",
	"work in a second terminal: this one runs the lesson":                                       "在另一个终端里操作：这个终端用来运行课程",
	"your kubectl uses this lab: KUBECONFIG=%s":                                                 "你的 kubectl 已经连着这个实验环境：KUBECONFIG=%s",
	"no kubectl on your PATH: where a task says kubectl, run crdlab --state-dir %s kubectl (the lab's own, of its Kubernetes version)": "PATH 里没有 kubectl：任务里写 kubectl 的地方，请运行 crdlab --state-dir %s kubectl（实验环境自带的、与它的 Kubernetes 版本一致的 kubectl）",
}

func init() {
	for k, v := range learnZH {
		zh[k] = v
	}
}
