package lang

// startZH holds the messages of a lesson's start (scenarios, spec.start)
// in Chinese: what it needs and did not find, what it made, which lesson
// to finish first. They join zh when the package loads.
var startZH = map[string]string{
	// crdlab scenario explain of a lesson (scenarios/format).
	"Starts from": "起点",
	"%s (made by the lesson when it does not hold)":                "%s（不满足时由这一课来准备）",
	"%s (when it does not hold: crdlab learn %s first)":            "%s（不满足时：先运行 crdlab learn %s）",
	"this lesson needs: %s. Not so here (%s): the lesson makes it": "这一课需要：%s。这里还不满足（%s）：由这一课来准备",
	"made: %s":                                "已准备好：%s",
	"still not so after %s: %v":               "过了 %s 仍然不满足：%v",
	"this lesson needs: %s. Not so here (%s)": "这一课需要：%s。这里还不满足（%s）",
	"this lesson needs: %s. Not so here (%s). Finish lesson %s first: crdlab learn %s": "这一课需要：%s。这里还不满足（%s）。请先学完 %s 这一课：crdlab learn %s",
}

func init() {
	for k, v := range startZH {
		zh[k] = v
	}
}
