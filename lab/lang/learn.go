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
	"no such lesson %q: lessons are %s":                                                         "没有名为 %q 的课程：内置课程有 %s",
	"the running lab's kubeconfig: %w":                                                          "正在运行的实验环境的 kubeconfig：%w",
	"your progress in lesson %s (%s): %w; --restart starts over":                                "读不了你在 %s 这一课的进度（%s）：%w；--restart 可以从头开始",
	"unable to keep your progress: %w":                                                          "无法保存你的进度：%w",
	"a lesson runs already on this state dir (%s): one lesson at a time":                        "这个状态目录上已经有一课在运行（%s）：一次只能运行一课",
	"unable to serve the lesson's socket: %w":                                                   "无法在课程的 socket 上监听：%w",
	"no lesson is running on %s: start one with 'crdlab learn LESSON'":                          "状态目录 %s 上没有正在运行的课程：先用 'crdlab learn LESSON' 开始一课",
	"no kubectl on your PATH: where a task says kubectl, run crdlab --state-dir %s kubectl (the lab's own, of its Kubernetes version)": "PATH 里没有 kubectl：任务里写 kubectl 的地方，请运行 crdlab --state-dir %s kubectl（实验环境自带的、与它的 Kubernetes 版本一致的 kubectl）",

	// Asking the running lesson for a hint (lab/server's AskHint: crdlab
	// learn hint and the web UI's hint button).
	"no lesson is running on %s: start one with 'crdlab learn LESSON' (%v)": "状态目录 %s 上没有正在运行的课程：先用 'crdlab learn LESSON' 开始一课（%v）",
	"the lesson's socket %s: %w": "课程的 socket %s：%w",
	"the lesson's socket %s gave no answer: it answers the user who runs the lesson only": "课程的 socket %s 没有回答：它只回答运行这一课的用户",

	// crdlab learn prepare (cmd/crdlab).
	"Download and build a lesson's controller skeleton, so that its first go run starts in seconds": "下载并编译课程的控制器骨架，让第一次 go run 几秒钟就能启动",
	"Write the lesson's files to <state-dir>/learn/LESSON/ (a file of yours\nthere is kept) and build the skeleton of its controller, the Go module in\ntheir folder controller: go mod download, then go build, saying how far it\nis. The first build downloads the skeleton's modules (controller-runtime\nand client-go, about 60, some 100 MB) and compiles them: a few minutes,\nonce. After it, 'go run .' in that folder starts in seconds.\n\nRun it in a terminal of its own while you read the lesson; it needs no\nlab. With no argument, it prepares every lesson that has a controller. It\nneeds Go, as the skeleton's go.mod says; where proxy.golang.org is out of\nreach (in mainland China), export GOPROXY=https://goproxy.cn,direct first.": "把课程的文件写到 <state-dir>/learn/LESSON/（那里已有的你的文件会保留），\n并编译它的控制器骨架，也就是文件中 controller 文件夹里的 Go 模块：先\ngo mod download，再 go build，并随时告诉你进展到哪里。第一次编译要下载骨架\n用到的模块（controller-runtime 和 client-go 等约 60 个，约 100 MB）并编译它们：\n需要几分钟，只有一次。之后在那个文件夹里运行 'go run .'，几秒钟就能启动。\n\n趁阅读课程的时候，在另一个终端里运行它；它不需要实验环境。不带参数时，它准备\n每一个有控制器的课程。它需要 Go，版本见骨架的 go.mod；访问不了\nproxy.golang.org 的话（比如在中国大陆），先执行\nexport GOPROXY=https://goproxy.cn,direct。",
	"lesson %s has no controller to prepare (no folder %s in its files)":                                                                                "课程 %s 没有需要准备的控制器（它的文件里没有 %s 文件夹）",
	"no go command on your PATH: the controller in %s needs Go (https://go.dev/dl)":                                                                     "PATH 里没有 go 命令：%s 里的控制器需要 Go（https://go.dev/dl）",
	"preparing %s: downloading its modules (go mod download)":                                                                                           "准备 %s：下载它的模块（go mod download）",
	"go mod download in %s: %v\n%s\nwhere proxy.golang.org is out of reach (mainland China), export GOPROXY=https://goproxy.cn,direct and run it again": "在 %s 里运行 go mod download 失败：%v\n%s\n访问不了 proxy.golang.org 的话（比如在中国大陆），先执行 export GOPROXY=https://goproxy.cn,direct，再运行一次",
	"modules downloaded in %s; building (go build): a few minutes the first time":                                                                       "模块下载完成，用时 %s；开始编译（go build）：第一次需要几分钟",
	"building: %d packages compiled, %s":                                                                                                                "编译中：已编译 %d 个包，用时 %s",
	"go build in %s: %v\n%s":                                                                                                                            "在 %s 里运行 go build 失败：%v\n%s",
	"ready in %s (%d packages compiled): cd %s && go run . starts in seconds now":                                                                       "准备好了，用时 %s（编译了 %d 个包）：现在 cd %s && go run . 几秒钟就能启动",
}

func init() {
	for k, v := range learnZH {
		zh[k] = v
	}
}
