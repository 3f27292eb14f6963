package lang

// causeZH holds, in Chinese, what a lesson's check says of who made what
// it sees (a check's by and notBy: scenarios/cause.go); they join zh when
// the package loads.
var causeZH = map[string]string{
	"your controller":                                                "你的控制器",
	"your controller (%s)":                                           "你的控制器（%s）",
	"the garbage collector":                                          "垃圾收集器",
	"Kubernetes' own components":                                     "Kubernetes 自带的组件",
	"crdlab itself":                                                  "crdlab 自己",
	"crdlab itself (%s)":                                             "crdlab 自己（%s）",
	"%s of %s":                                                       "%[2]s 的 %[1]s",
	"%s was made by %s, not by %s":                                   "%s 是%s创建的，而不是%s",
	"%s was deleted by %s, not by %s":                                "%s 是%s删除的，而不是%s",
	"%s was written by %s, not by %s":                                "%s 是%s写入的，而不是%s",
	"%s was removed by %s, not by %s":                                "%s 是%s去掉的，而不是%s",
	"%s was made by %s, which this task does not count":              "%s 是%s创建的，这个任务不算",
	"%s was deleted by %s, which this task does not count":           "%s 是%s删除的，这个任务不算",
	"%s was written by %s, which this task does not count":           "%s 是%s写入的，这个任务不算",
	"%s was removed by %s, which this task does not count":           "%s 是%s去掉的，这个任务不算",
	"%s is gone, but the timeline has not said who deleted it (yet)": "%s 已经不在了，但时间线还没有说出是谁删除的",
	"%s: accepted, but the apiserver would drop %s: the schema does not name it (pruned)": "%s：被接受了，但 API 服务器会丢掉 %s：schema 里没有这个字段（被剪裁）",
	"%s: no writer of %s is in its managedFields":                                         "%s：它的 managedFields 里没有 %s 的写入者",
	"%s: there is none, and the check is about every one (it would hold over none)":       "%s：一个也没有；这项检查针对的是其中每一个（一个都没有时，它什么也证明不了）",
}

func init() {
	for k, v := range causeZH {
		zh[k] = v
	}
}
