package timeline

import (
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/lang"
)

// The timeline's own words are said in the reader's language, every one of
// them (the pseudo-language leaves no English sentence bare); the names,
// fields and values, and what Kubernetes or a program said, stay as they
// are. The details are the ones diff.go, lab/server's passEvent, the
// sample operators' tracer and webhook.go write.
func TestDetailIn(t *testing.T) {
	for _, tc := range []struct {
		e  Event
		zh string
	}{
		{Event{Verb: Delete, Kind: "Pod", Detail: "deletion requested (graceful)"}, "已请求删除（优雅终止）"},
		{Event{Verb: Delete, Kind: "Pod", Detail: "confirmed by node/lab-node-1"}, "由 node/lab-node-1 确认"},
		{Event{Verb: Status, Kind: "Pod", Detail: "Running, Ready"}, "运行中，就绪"},
		{Event{Verb: Status, Kind: "Pod", Detail: "Pending, not ready"}, "等待中，未就绪"},
		{Event{Verb: Status, Kind: "Pod", Detail: "Running, terminating"}, "运行中，终止中"},
		{Event{Verb: Update, Kind: "Deployment", Detail: "spec.replicas 3→10"}, "spec.replicas 3→10"},
		{Event{Verb: Update, Kind: "Deployment", Detail: "metadata.labels.a ∅→b, spec.paused false→true, spec.replicas 3→10, +2 more"},
			"metadata.labels.a ∅→b, spec.paused false→true, spec.replicas 3→10, 另有 2 项"},
		{Event{Verb: Bind, Kind: "Pod", Detail: "→ node/lab-node-2"}, "→ node/lab-node-2"},
		{Event{Verb: Reconcile, Detail: "no change; woken by a requeue or a related object; in 1.5ms"},
			"没有改动；触发：重新入队或相关对象的变化；耗时 1.5ms"},
		{Event{Verb: Reconcile, Detail: "UPDATE deployment/demo, STATUS guestbook/demo (refused: Conflict); " +
			"woken by guestbook/demo spec changed, deployment/demo status or metadata updated; in 1.5ms"},
			"UPDATE deployment/demo，STATUS guestbook/demo（被拒绝：Conflict）；" +
				"触发：guestbook/demo 的 spec 有变化，deployment/demo 的 status 或 metadata 有更新；耗时 1.5ms"},
		{Event{Verb: Reconcile, Detail: "no change; error: the object has been modified; please apply your changes (retried with back-off); woken by a requeue or a related object; in 1.5ms"},
			"没有改动；出错：the object has been modified; please apply your changes（按退避间隔重试）；触发：重新入队或相关对象的变化；耗时 1.5ms"},
		{Event{Verb: Reconcile, Detail: "no change; error: bad spec (terminal: not retried); woken by a requeue or a related object; in 1.5ms"},
			"没有改动；出错：bad spec（终止性错误，不再重试）；触发：重新入队或相关对象的变化；耗时 1.5ms"},
		{Event{Verb: Reconcile, Detail: "no change; woken by pod/a deleted, …; in 1.5ms"}, "没有改动；触发：pod/a 被删除，…；耗时 1.5ms"},
		{Event{Verb: Reconcile, Detail: "CREATE deployment/web; requeue after 5s; woken by webapp/web created; in 12ms"},
			"CREATE deployment/web；5s 后重新入队；触发：webapp/web 被创建；耗时 12ms"},
		{Event{Verb: Reconcile, Detail: "no change; requeue (with back-off); woken by webapp/web being deleted, pod/x event; in 1ms"},
			"没有改动；重新入队（按退避间隔）；触发：webapp/web 正在被删除，pod/x 的事件；耗时 1ms"},
		{Event{Verb: Allowed, Detail: "vwebapp.kb.io: validate create of v1, asked by you (kubectl): allowed"},
			"vwebapp.kb.io: 校验 v1 的 create 请求，发起者：你（kubectl）：允许"},
		{Event{Verb: Allowed, Detail: `default update of v1, asked by webapp-operator: allowed, patch [{"op":"add"}]`},
			`为 v1 的 update 请求设置默认值，发起者：webapp-operator（WebApp 控制器）：允许，补丁：[{"op":"add"}]`},
		{Event{Verb: Denied, Detail: "validate create of v1, asked by you (kubectl): denied: spec.replicas must be at most 10"},
			"校验 v1 的 create 请求，发起者：你（kubectl）：拒绝：spec.replicas must be at most 10"},
		{Event{Verb: Convert, Detail: "v1 → v2, asked by kube-apiserver"}, "v1 → v2，发起者：kube-apiserver"},
		{Event{Verb: Convert, Detail: "v1 → v2, asked by kube-apiserver: failed: no such field"}, "v1 → v2，发起者：kube-apiserver：失败：no such field"},
		{Event{Verb: Emit, Detail: "Killing: Stopping container web"}, "Killing: Stopping container web"},
	} {
		if got := DetailIn(lang.EN, tc.e); got != tc.e.Detail {
			t.Errorf("DetailIn(en, %q) = %q: English is as recorded", tc.e.Detail, got)
		}
		if got := DetailIn(lang.ZH, tc.e); got != tc.zh {
			t.Errorf("DetailIn(zh, %s %q) =\n  %q, want\n  %q", tc.e.Verb, tc.e.Detail, got, tc.zh)
		}
		if tc.e.Verb == Emit || tc.e.Verb == Denied || strings.Contains(tc.e.Detail, "has been modified") || strings.Contains(tc.e.Detail, "failed: ") {
			continue // another program's sentence: an Event's message, a denial, an error, a failure
		}
		if bare := lang.Bare(DetailIn(lang.Pseudo, tc.e)); len(bare) > 0 {
			t.Errorf("DetailIn(xx, %q): English outside the catalog: %q", tc.e.Detail, bare)
		}
	}
}

// The printer says a line's detail and its late note in its language.
func TestPrinterLang(t *testing.T) {
	var b strings.Builder
	p := NewPrinter(&b)
	p.Lang = lang.ZH
	p.Record(Event{Actor: "kubelet", Verb: Delete, Kind: "Pod", Name: "web-1", Detail: "confirmed by node/lab-node-1", Late: true})
	if got := b.String(); !strings.Contains(got, "pod/web-1  由 node/lab-node-1 确认  （迟到：比排在它后面的行来得晚）") {
		t.Errorf("printed %q", got)
	}
}
