package timeline

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"

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
		{Event{Verb: "RESET", Kind: "Cluster", Detail: "12 objects deleted, 3 put back: the DELETEs by ? that follow"},
			"删除了 12 个对象，放回了 3 个：紧随其后、执行者为“?”的那些 DELETE 就是这次重置"},
		{Event{Verb: "RESTARTED", Kind: "Process", Detail: "healthy again after 1.2s (restart 1)"}, "宕掉 1.2s 之后恢复正常（第 1 次重启）"},
		{Event{Verb: "CRASHED", Kind: "Process", Detail: "exit status 2; restarting it"}, "exit status 2；正在重启它"},
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

// Every actor the timeline names for a kind's controller, and the lab's
// own (a reset, a process's crash and restart), has a gloss in Chinese.
func TestActorsHaveAGloss(t *testing.T) {
	actors := []string{"crdlab", "crdlab reset"}
	for _, a := range controllerFor {
		actors = append(actors, a)
	}
	for _, a := range actors {
		if got := lang.ZH.Actor(a); got == a || !strings.HasPrefix(got, a+"（") {
			t.Errorf("actor %q in Chinese: %q, want %q with a gloss: %[1]s（…）", a, got, a)
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

// A webhook call that gave no usable answer is told in the reader's
// language, whoever wrote its line (this package's ReviewEvents and
// ReviewFailed, with the lab's webhook front's accounts); the values in it
// (a URL, a body, an error) stay as they are.
func TestWebhookFailureIn(t *testing.T) {
	admissionReq := []byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u1",
		"kind":{"group":"webapp.crdlab.dev","version":"v1","kind":"WebApp"},"operation":"CREATE","namespace":"default","name":"web",
		"userInfo":{"username":"system:serviceaccount:webapp-system:webapp-operator"}}}`)
	conversionReq := []byte(`{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{"uid":"u2",
		"desiredAPIVersion":"webapp.crdlab.dev/v2","objects":[{"apiVersion":"webapp.crdlab.dev/v1","kind":"WebApp","metadata":{"name":"a"}},
		{"apiVersion":"webapp.crdlab.dev/v1","kind":"WebApp","metadata":{"name":"b"}}]}}`)
	hook := Webhook{Actor: "webapp-webhooks", Name: "vwebapp.kb.io"}
	one := func(events []Event) Event {
		t.Helper()
		if len(events) == 0 {
			t.Fatal("no event")
		}
		return events[0]
	}
	cert := fmt.Sprintf(NotTheLabsCertificate, "127.0.0.1:9443", "x509", "tls.crt", "tls.key", "/tmp/certs")
	for _, tc := range []struct {
		e      Event
		zhTail string // the Chinese after what the webhook was asked
	}{
		{one(ReviewEvents(hook, admissionReq, []byte(`<html>`))), `：返回的不是 AdmissionReview："<html>"`},
		{one(ReviewEvents(hook, admissionReq, []byte(` `))), `：返回的不是 AdmissionReview：空的响应体`},
		{one(ReviewEvents(hook, admissionReq, []byte(`{"kind":"AdmissionReview"}`))), `：返回的 AdmissionReview 里没有 response`},
		{one(ReviewEvents(hook, admissionReq, []byte(`{"kind":"AdmissionReview","response":{"uid":"u9","allowed":true}}`))), `：返回的 uid 是 "u9"，不是请求的 "u1"`},
		{one(ReviewEvents(hook, conversionReq, []byte(`<html>`))), `：返回的不是 ConversionReview："<html>"`},
		{one(ReviewEvents(hook, conversionReq, []byte(`{"kind":"ConversionReview"}`))), `：返回的 ConversionReview 里没有 response`},
		{one(ReviewEvents(hook, conversionReq, []byte(`{"kind":"ConversionReview","response":{"uid":"u2","result":{"status":"Success"},"convertedObjects":[{}]}}`))),
			`：请求里有 2 个对象，返回的却是 1 个`},
		{ReviewFailed(hook, admissionReq, fmt.Sprintf(NoAnswerInTime, "https://127.0.0.1:9443/validate", "timeoutSeconds 10")),
			`：https://127.0.0.1:9443/validate 没有及时响应：API 服务器已放弃这次调用（webhook 的 timeoutSeconds 10）`},
		{ReviewFailed(hook, admissionReq, fmt.Sprintf(NothingServes, "127.0.0.1:9443", "/tmp/certs")),
			`：127.0.0.1:9443 上没有服务在监听（连接被拒绝）：请在那里启动你的 webhook 服务器，证书在 /tmp/certs 里`},
		{ReviewFailed(hook, admissionReq, cert), `：127.0.0.1:9443：它的证书不是实验环境签发的（x509）：请用 /tmp/certs 里的 tls.crt 和 tls.key 提供服务`},
		{ReviewFailed(hook, admissionReq, fmt.Sprintf(CallFailed, "https://127.0.0.1:9443/validate", "EOF")), `：调用 https://127.0.0.1:9443/validate 出错：EOF`},
		{ReviewFailed(hook, admissionReq, fmt.Sprintf(AnsweredHTTP, "https://127.0.0.1:9443/validate", 500, "boom")), `：https://127.0.0.1:9443/validate 返回了 HTTP 500：boom`},
		{ReviewFailed(hook, conversionReq, cert), `v1 → v2（2 个对象）：127.0.0.1:9443：它的证书不是实验环境签发的（x509）：请用 /tmp/certs 里的 tls.crt 和 tls.key 提供服务`},
		{ReviewFailed(hook, []byte(`{}`), NotAReview), `API 服务器发来的既不是 AdmissionReview，也不是 ConversionReview`},
	} {
		if got := DetailIn(lang.EN, tc.e); got != tc.e.Detail {
			t.Errorf("DetailIn(en, %q) = %q: English is as recorded", tc.e.Detail, got)
		}
		if got := DetailIn(lang.ZH, tc.e); !strings.HasSuffix(got, tc.zhTail) {
			t.Errorf("DetailIn(zh, %s %q) =\n  %q, want it to end in\n  %q", tc.e.Verb, tc.e.Detail, got, tc.zhTail)
		}
		if bare := lang.Bare(DetailIn(lang.Pseudo, tc.e)); len(bare) > 0 {
			t.Errorf("DetailIn(xx, %q): English outside the catalog: %q", tc.e.Detail, bare)
		}
	}
	for _, f := range append([]string{conversionOfN, conversionAskedByAPI, emptyBody}, webhookFailures...) {
		if !lang.ZH.Translated(f) {
			t.Errorf("%q has no Chinese version in lab/lang (timeline.go)", f)
		}
	}
}

// A write refused because the user's webhook server cannot be reached
// carries the lab's webhook front's account inside the apiserver's error,
// which WebhookErrorIn says in the reader's language as DetailIn does on
// the timeline; what Kubernetes said around it stays as it is. The errors
// are made as the apiserver makes them: its webhook dispatcher's
// ErrCallingWebhook around the REST client's error for the front's 502,
// refused as an internal error; a conversion webhook's error.
func TestWebhookErrorIn(t *testing.T) {
	const certs = "/tmp/crdlab-1/webhook-certs"
	frontSaid := func(why string) error { // the front's http.Error, as the webhook client reads it
		body := strings.TrimSpace(FrontSays + why + "\n")
		return apierrors.NewGenericServerResponse(http.StatusBadGateway, http.MethodPost, schema.GroupResource{}, "", body, 0, true)
	}
	admission := func(why string) string {
		return apierrors.NewInternalError(&webhookutil.ErrCallingWebhook{
			WebhookName: "vuser.kb.io",
			Reason:      fmt.Errorf("failed to call webhook: %w", frontSaid(why)),
		}).Error()
	}
	conversion := func(why string) string {
		return apierrors.NewInternalError(fmt.Errorf("conversion webhook for %v failed: %w",
			schema.GroupVersionKind{Group: "auth.ilinux.io", Version: "v1", Kind: "User"}, frontSaid(why))).Error()
	}
	nothing := fmt.Sprintf(NothingServes, "127.0.0.1:9443", certs)
	cert := fmt.Sprintf(NotTheLabsCertificate, "127.0.0.1:9443", `x509: certificate signed by unknown authority (possibly because of "crypto/rsa: verification error")`, "tls.crt", "tls.key", certs)
	for _, tc := range []struct {
		msg, zh string // zh: the Chinese the message must hold
	}{
		{admission(nothing), `"crdlab: 127.0.0.1:9443 上没有服务在监听（连接被拒绝）：请在那里启动你的 webhook 服务器，证书在 ` + certs + ` 里"`},
		{admission(cert), `：它的证书不是实验环境签发的（x509: certificate signed by unknown authority (possibly because of \"crypto/rsa: verification error\")）：请用 ` + certs + ` 里的 tls.crt 和 tls.key 提供服务"`},
		{conversion(nothing), `"crdlab: 127.0.0.1:9443 上没有服务在监听（连接被拒绝）：`},
	} {
		if !strings.Contains(tc.msg, `failed calling webhook "vuser.kb.io"`) && !strings.Contains(tc.msg, "conversion webhook for auth.ilinux.io/v1, Kind=User failed") {
			t.Fatalf("not the apiserver's error: %s", tc.msg)
		}
		if got := WebhookErrorIn(lang.EN, tc.msg); got != tc.msg {
			t.Errorf("WebhookErrorIn(en) = %q, want it as the apiserver said it", got)
		}
		got := WebhookErrorIn(lang.ZH, tc.msg)
		if !strings.Contains(got, tc.zh) {
			t.Errorf("WebhookErrorIn(zh, %q) =\n  %q, want it to hold\n  %q", tc.msg, got, tc.zh)
		}
		if !strings.HasPrefix(got, "Internal error occurred: ") || !strings.HasSuffix(got, ") has prevented the request from succeeding") {
			t.Errorf("WebhookErrorIn(zh) = %q: what the apiserver said around the account is as it is", got)
		}
		// Only the account is crdlab's to say: the words around it are
		// the apiserver's, and what the account quotes (a TLS error) Go's.
		body, err := strconv.Unquote(frontQuoted.FindString(WebhookErrorIn(lang.Pseudo, tc.msg)))
		account, ok := strings.CutPrefix(body, FrontSays)
		if err != nil || !ok {
			t.Fatalf("WebhookErrorIn(xx, %q): no account of the front in it (%v)", tc.msg, err)
		}
		account = strings.ReplaceAll(account, `x509: certificate signed by unknown authority (possibly because of "crypto/rsa: verification error")`, "…")
		if bare := lang.Bare(account); len(bare) > 0 {
			t.Errorf("WebhookErrorIn(xx): the account %q has English outside the catalog: %q", account, bare)
		}
	}
	other := admission("something else")
	if got := WebhookErrorIn(lang.ZH, other); got != other {
		t.Errorf("WebhookErrorIn(zh) of an account it does not know = %q, want it as it is", got)
	}
}
