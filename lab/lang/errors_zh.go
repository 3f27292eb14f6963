package lang

// errorsZH holds the errors a user can reach in Chinese (cmd/crdlab,
// lab/server: Errorf), cobra's and pflag's errors about the command line
// and Go's reasons for refusing a flag's value (cmd/crdlab: errorText), and
// the lab's own timeline lines (lab/timeline: DetailIn). They join zh
// when the package loads.
var errorsZH = map[string]string{
	// cobra's and pflag's errors (cmd/crdlab: commandLineError).
	"accepts %s arg(s), received %s":                "需要 %s 个参数，实际给了 %s 个",
	"accepts at most %s arg(s), received %s":        "最多接受 %s 个参数，实际给了 %s 个",
	"requires at least %s arg(s), only received %s": "至少需要 %s 个参数，实际只给了 %s 个",
	"accepts between %s and %s arg(s), received %s": "需要 %s 到 %s 个参数，实际给了 %s 个",
	"invalid argument %s for %s":                    "%[2]s 不接受参数 %[1]s",
	"bad flag syntax: %s":                           "选项的写法不对：%s",
	"required flag(s) %s not set":                   "缺少必需的选项：%s",
	"want true or false":                            "应为 true 或 false",
	"not a number":                                  "不是数字",
	"out of range":                                  "超出了范围",
	"not a duration (like 90s, 5m, 1h)":             "不是时长（例如 90s、5m、1h）",
	"want key=value pairs, separated by commas":     "应为以逗号分隔的 key=value",
	"unknown language (want en or zh)":              "不认识这种语言（可用的有 en 和 zh）",
	"see %s":                                        "详见 %s",
	"a lab is already running":                      "已经有一个实验环境在运行",
	"unknown node":                                  "没有这个节点",
	"unknown component":                             "没有这个组件",
	"state dir not private":                         "状态目录不是私有的",
	"the lab did not stop in time":                  "实验环境没有按时停止",

	// The lab's own errors behind a flag (lab, lab/server, lab/ui,
	// lab/writefile: Errorf); what the system said is quoted.
	"port in use":                       "端口已被占用",
	"work dir unusable":                 "工作目录用不了",
	"data dir unusable":                 "数据目录用不了",
	"unusable CRD path":                 "CRD 路径用不了",
	"unusable webhook manifest":         "webhook 清单用不了",
	"simulated nodes not Ready in time": "模拟节点没有按时 Ready",
	"unusable node capacity":            "节点容量不对",
	"unusable number of zones":          "可用区的数目不对",
	"%w: %w":                            "%w：%w",
	"%w: %s: %w":                        "%w：%s：%w",
	"unable to create %s: %w":           "无法创建 %s：%w",
	"%s is not writable: %w":            "%s 不可写：%w",
	"%w: unable to listen on %s for kube-apiserver: %q":        "%[1]w：无法在 %[2]s 上为 kube-apiserver 监听（系统的回答：%[3]q）",
	"%w: 127.0.0.1:%d serves something else already":           "%w：127.0.0.1:%d 上已经有别的服务了",
	"%w: %s: unreadable %s (%q); the folder was left as it is": "%[1]w：%[2]s：读不懂 %[3]s（%[4]q）；这个目录原样保留",
	"%w: etcd cannot use the data in %s: %q; it was left as it is (move it away, or start with another --data-dir); the etcd log is %s":                                                                                      "%[1]w：etcd 用不了 %[2]s 里的数据（etcd 的回答：%[3]q）；数据原样保留（把它移走，或者换一个 --data-dir 启动）；etcd 的日志在 %[4]s",
	"%w: %s holds the data of Kubernetes %s (etcd %s), written by crdlab %s; this lab runs Kubernetes %s (etcd %s) and does not start on it; it was left as it is: start it with --kubernetes %s, or use another --data-dir": "%[1]w：%[2]s 里是 Kubernetes %[3]s（etcd %[4]s）的数据，由 crdlab %[5]s 写入；这个实验环境运行的是 Kubernetes %[6]s（etcd %[7]s），不会在它上面启动，数据原样保留：请用 --kubernetes %[8]s 启动，或者换一个 --data-dir",
	"%w: %s holds the data of Kubernetes %s (etcd %s), written by crdlab %s; this lab runs Kubernetes %s (etcd %s) and does not start on it; it was left as it is: use the crdlab that wrote it, or another --data-dir":      "%[1]w：%[2]s 里是 Kubernetes %[3]s（etcd %[4]s）的数据，由 crdlab %[5]s 写入；这个实验环境运行的是 Kubernetes %[6]s（etcd %[7]s），不会在它上面启动，数据原样保留：请用写入它的那个 crdlab，或者换一个 --data-dir",
	"%w: %d zones for %d nodes: want 0 to %d, and no more than the nodes": "%[1]w：%[3]d 个节点分布在 %[2]d 个可用区：可用区应为 0 到 %[4]d 个，且不能多于节点数",
	"%w: %d of %d Ready after %s; not Ready: %s%s":                        "%[1]w：过了 %[4]s，%[3]d 个节点中只有 %[2]d 个 Ready；没有 Ready 的：%[5]s%[6]s",
	"%w: %q: not a node resource (known: cpu, memory, pods)":              "%w：%q 不是节点的资源（可用的有 cpu、memory、pods）",
	"%w: %s=%s: must be positive":                                         "%w：%s=%s：必须是正数",
	"%w: pods=%s: must be a whole number":                                 "%w：pods=%s：必须是整数",
	"%w: pods=%s: at most %d (a node's podCIDR is a /%d)":                 "%w：pods=%s：最多 %d 个（一个节点的 podCIDR 只是一个 /%d 网段）",
	"%w: envtest cannot read them: %q":                                    "%w：envtest 读不了它们（envtest 的回答：%q）",
	"%w: no CustomResourceDefinition in %s":                               "%w：%s 里没有 CustomResourceDefinition",
	"%w: %s: %s %s: the apiserver refused it: %q":                         "%[1]w：%[2]s：%[3]s %[4]s 被 API 服务器拒绝了（它的回答：%[5]q）",

	// A file's error (io/fs.PathError) and the system's commonest reasons.
	"%s %s: %s":                 "%s %s：%s",
	"no such file or directory": "没有这个文件或目录",
	"not a directory":           "不是目录",
	"is a directory":            "是一个目录",
	"permission denied":         "没有权限",
	"file exists":               "文件已存在",
	"read-only file system":     "文件系统是只读的",
	"no space left on device":   "设备上没有空间了",

	// A lab already on the state dir, a state dir not private (lab/server).
	"%w on state dir %s (pid %d, %s); stop it with 'crdlab down'":                                                                                 "状态目录 %[2]s 上%[1]w（pid %[3]d，%[4]s）；用 'crdlab down' 停止它",
	"%w on state dir %s (starting); stop it with 'crdlab down'":                                                                                   "状态目录 %[2]s 上%[1]w（正在启动）；用 'crdlab down' 停止它",
	"%w: %s belongs to user %d, not to you (%d); use a folder of your own":                                                                        "%[1]w：%[2]s 属于用户 %[3]d，不属于你（%[4]d）；请换一个你自己的目录",
	"%w: %s is writable by other users (mode %04o); whoever writes there could act as the lab's admin: run 'chmod go-w %s' or use another folder": "%[1]w：其他用户可以写入 %[2]s（权限 %[3]04o），能在这里写入的人就能以实验环境管理员的身份操作：请运行 'chmod go-w %[4]s'，或者换一个目录",

	// The flags of crdlab up (cmd/crdlab: up.go).
	"--state-dir: %w":                      "--state-dir：%w",
	"--port: %w":                           "--port：%w",
	"--data-dir: %w":                       "--data-dir：%w",
	"--crds: %w":                           "--crds：%w",
	"--webhooks: %w":                       "--webhooks：%w",
	"--ui-port: %w":                        "--ui-port：%w",
	"--timeout: %w":                        "--timeout：%w",
	"--node-capacity: %w":                  "--node-capacity：%w",
	"--zones: %w":                          "--zones：%w",
	"--restart: %w":                        "--restart：%w",
	"--junit: %w":                          "--junit：%w",
	"--owner-pid %d: %w":                   "--owner-pid %d：%w",
	"--dir %s: %w":                         "--dir %s：%w",
	"--kubeconfig %s: %w":                  "--kubeconfig %s：%w",
	"--state-dir: unable to create %s: %w": "--state-dir：无法创建 %s：%w",
	"--node-capacity %s=%s: unknown resource %q (want cpu, memory or pods)": "--node-capacity %s=%s：不认识的资源 %q（可用的有 cpu、memory 和 pods）",
	"--node-capacity %s=%s: not a quantity (like 8, 500m, 16Gi)":            "--node-capacity %s=%s：不是数量（例如 8、500m、16Gi）",
	"--node-capacity %s=%s: must be positive":                               "--node-capacity %s=%s：必须大于零",
	"--node-capacity pods=%s: must be a whole number":                       "--node-capacity pods=%s：必须是整数",

	// Starting and stopping a lab in the background (cmd/crdlab: detach.go).
	"unable to find this executable: %w":                      "找不到这个可执行文件本身：%w",
	"unable to start the lab in the background: %w":           "无法在后台启动实验环境：%w",
	"the lab said it was ready, but: %w":                      "实验环境说它已就绪，但是：%w",
	"the lab (pid %d) said it was ready, but %s names pid %d": "实验环境（pid %d）说它已就绪，但 %s 里记的是 pid %d",
	"unable to find lab process %d: %w":                       "找不到实验环境的进程 %d：%w",
	"unable to signal lab process %d: %w":                     "无法向实验环境的进程 %d 发信号：%w",
	"unable to watch lab process %d: %w":                      "无法监视实验环境的进程 %d：%w",
	"%w (%s); killed pid %d":                                  "%w（%s），已强行结束 pid %d",

	// Nodes and controllers by name (cmd/crdlab: node.go, controller.go).
	"node %s: %w":       "节点 %s：%w",
	"controller %s: %w": "控制器 %s：%w",
	"node %q: this lab has no simulated node of that name; it has: %s":   "节点 %q：这个实验环境里没有叫这个名字的模拟节点；它有：%s",
	"controller %q: this lab has no controller of that name; it has: %s": "控制器 %q：这个实验环境里没有叫这个名字的控制器；它有：%s",

	// crdlab envtest, kubectl, learn prepare, scenario run.
	"no user cache dir (%w); give a folder with --dir": "没有用户缓存目录（%w）；请用 --dir 指定一个目录",
	"%w; start one with 'crdlab up -d'":                "%w；先用 'crdlab up -d' 启动一个",
	"no lab is running":                                "没有正在运行的实验环境",
	"the lab serves Kubernetes %s, more than one minor from crdlab's kubectl (%s): %w": "实验环境提供的是 Kubernetes %s，与 crdlab 内置的 kubectl（%s）相差不止一个次版本：%w",
	"kubectl of %s: %w":        "%s 的 kubectl：%w",
	"go build in %s: %w":       "在 %s 里运行 go build 失败：%w",
	"the lab's kubeconfig: %w": "实验环境的 kubeconfig：%w",

	// The lab's own timeline lines (lab: reset.go, supervise.go).
	"%s objects deleted, %s put back: the DELETEs by ? that follow": "删除了 %s 个对象，放回了 %s 个：紧随其后、执行者为“?”的那些 DELETE 就是这次重置",
	"healthy again after %s (restart %s)%s":                         "宕掉 %s 之后恢复正常（第 %s 次重启）%s",
	"%s; restarting it":                                             "%s；正在重启它",
}

func init() {
	for k, v := range errorsZH {
		zh[k] = v
	}
}
