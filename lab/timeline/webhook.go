package timeline

import (
	"encoding/json"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Verbs of webhook events.
const (
	Allowed = "ALLOWED" // an admission webhook let a write through
	Denied  = "DENIED"  // an admission webhook refused a write
	Convert = "CONVERT" // a conversion webhook converted an object
	Failed  = "FAILED"  // a webhook call that gave no usable answer
)

// How the lab's webhook front (lab/internal/webhooks) tells a call that
// got no answer (ReviewFailed's why), as formats. The timeline records
// them in English; DetailIn says them in the reader's language.
const (
	// NoAnswerInTime: the apiserver gave up on the call (the webhook's
	// URL, its timeoutSeconds).
	NoAnswerInTime = "no answer from %s in time: the apiserver gave up (the webhook's %s)"
	// NothingServes: the connection was refused (the host:port, the
	// certificates' folder).
	NothingServes = "nothing serves on %s (connection refused): start your webhook server there, with the certificate in %s"
	// NotTheLabsCertificate: the webhook served another certificate (the
	// host:port, the TLS error, the certificate's and key's files and
	// folder).
	NotTheLabsCertificate = "%s: its certificate is not the lab's (%v): serve with %s and %s of %s"
	// CallFailed: any other error of the call (the URL, the error).
	CallFailed = "calling %s: %v"
	// AnsweredHTTP: an answer with a status other than 200 (the URL, the
	// status, the start of the body).
	AnsweredHTTP = "%s answered HTTP %d: %s"
	// NotAReview: the apiserver sent neither an AdmissionReview nor a
	// ConversionReview.
	NotAReview = "the apiserver sent something that is not a review"
)

// FrontSays starts the body of the lab's webhook front's answer to the
// apiserver (HTTP 502) when the call to the user's server got none; the
// account of why (NothingServes...) follows. The apiserver quotes the body
// in the error of the write it refuses ("failed calling webhook ...: an
// error on the server (\"crdlab: ...\")"), which WebhookErrorIn says in
// the reader's language.
const FrontSays = "crdlab: "

// How this package tells a webhook's answer it cannot use, and the
// conversions it describes, as formats.
const (
	notAnAdmissionReview = "answered something that is not an AdmissionReview: %s"
	noAdmissionResponse  = "answered an AdmissionReview without a response"
	wrongUID             = "answered for uid %q, not the request's %q"
	notAConversionReview = "answered something that is not a ConversionReview: %s"
	noConversionResponse = "answered a ConversionReview without a response"
	wrongObjectCount     = "answered %d objects for %d"
	conversionFailed     = "failed: %s"
	emptyBody            = "an empty body"
	conversionOfN        = "%s → %s (%d objects)"
	conversionAskedByAPI = "%s → %s, asked by kube-apiserver"
)

// webhookFailures lists the formats of a failed call's account, which
// DetailIn says in the reader's language.
var webhookFailures = []string{notAnAdmissionReview, noAdmissionResponse, wrongUID, notAConversionReview,
	noConversionResponse, wrongObjectCount, conversionFailed, NoAnswerInTime, NothingServes,
	NotTheLabsCertificate, CallFailed, AnsweredHTTP, NotAReview}

// Webhook describes the webhook behind a call, for the timeline.
type Webhook struct {
	// Actor is the timeline's actor: the webhook server's name.
	Actor string
	// Mutating: a mutating (defaulting) webhook; else a validating one.
	// Ignored for conversions.
	Mutating bool
	// Name is the webhook's name in its configuration (empty: not said).
	Name string
}

// ReviewEvents turns one webhook call, the AdmissionReview or
// ConversionReview the apiserver sent (req) and the webhook's answer
// (resp), into timeline events: ALLOWED or DENIED with who asked, the
// message and the patch; CONVERT for each object with its versions; FAILED
// when the answer is not a review the apiserver can use.
func ReviewEvents(w Webhook, req, resp []byte) []Event {
	var kind struct{ Kind string }
	_ = json.Unmarshal(req, &kind)
	switch kind.Kind {
	case "AdmissionReview":
		return admissionEvents(w, req, resp)
	case "ConversionReview":
		return conversionEvents(w, req, resp)
	}
	return nil
}

// ReviewFailed is the FAILED event of a call to w that got no answer at
// all: req is what the apiserver sent, why says what happened.
func ReviewFailed(w Webhook, req []byte, why string) Event {
	e := Event{Actor: w.Actor, Verb: Failed, Detail: why}
	var in admissionv1.AdmissionReview
	if json.Unmarshal(req, &in) == nil && in.Kind == "AdmissionReview" && in.Request != nil {
		e.Kind, e.Namespace, e.Name = in.Request.Kind.Kind, in.Request.Namespace, admissionName(in.Request)
		e.Detail = admissionWhat(w, in.Request) + why
		return e
	}
	var conv conversionReview
	if json.Unmarshal(req, &conv) == nil && conv.Request != nil && len(conv.Request.Objects) > 0 {
		var obj unstructured.Unstructured
		if json.Unmarshal(conv.Request.Objects[0], &obj.Object) == nil {
			e.Kind, e.Namespace, e.Name = obj.GetKind(), obj.GetNamespace(), obj.GetName()
			e.Detail = named(w) + fmt.Sprintf(conversionOfN, apiVersionOnly(obj.GetAPIVersion()),
				apiVersionOnly(conv.Request.DesiredAPIVersion), len(conv.Request.Objects)) + ": " + why
		}
	}
	return e
}

func named(w Webhook) string {
	if w.Name == "" {
		return ""
	}
	return w.Name + ": "
}

func admissionName(r *admissionv1.AdmissionRequest) string {
	if r.Name != "" {
		return r.Name
	}
	var obj unstructured.Unstructured
	if json.Unmarshal(r.Object.Raw, &obj.Object) == nil {
		if n := obj.GetName(); n != "" {
			return n
		}
		return obj.GetGenerateName() + "*"
	}
	return ""
}

// admissionWhat is the start of an admission event's detail: which webhook,
// what it checks, of which write, asked by whom.
func admissionWhat(w Webhook, r *admissionv1.AdmissionRequest) string {
	what := "validate"
	if w.Mutating {
		what = "default"
	}
	who := auditActor(r.UserInfo.Username, "")
	if who == "?" || who == "" {
		who = r.UserInfo.Username
	}
	return fmt.Sprintf("%s%s %s of %s, asked by %s: ", named(w), what, strings.ToLower(string(r.Operation)), r.Kind.Version, who)
}

func admissionEvents(w Webhook, req, resp []byte) []Event {
	var in admissionv1.AdmissionReview
	if json.Unmarshal(req, &in) != nil || in.Request == nil {
		return nil
	}
	r := in.Request
	e := Event{Actor: w.Actor, Kind: r.Kind.Kind, Namespace: r.Namespace, Name: admissionName(r)}
	detail := admissionWhat(w, r)
	var out admissionv1.AdmissionReview
	err := json.Unmarshal(resp, &out)
	switch res := out.Response; {
	case err != nil:
		e.Verb, detail = Failed, detail+fmt.Sprintf(notAnAdmissionReview, clip(resp))
	case res == nil:
		e.Verb, detail = Failed, detail+noAdmissionResponse
	case res.UID != r.UID:
		e.Verb, detail = Failed, detail+fmt.Sprintf(wrongUID, res.UID, r.UID)
	case res.Allowed:
		e.Verb = Allowed
		detail += "allowed"
		if len(res.Patch) > 0 {
			detail += ", patch " + string(res.Patch)
		}
	default:
		e.Verb = Denied
		msg := ""
		if res.Result != nil {
			msg = res.Result.Message
		}
		detail += "denied: " + msg
	}
	e.Detail = detail
	return []Event{e}
}

// conversionReview is apiextensions.k8s.io/v1's ConversionReview, as much
// of it as the timeline reads.
type conversionReview struct {
	Kind    string `json:"kind"`
	Request *struct {
		UID               string            `json:"uid"`
		DesiredAPIVersion string            `json:"desiredAPIVersion"`
		Objects           []json.RawMessage `json:"objects"`
	} `json:"request"`
	Response *struct {
		UID              string            `json:"uid"`
		ConvertedObjects []json.RawMessage `json:"convertedObjects"`
		Result           struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"result"`
	} `json:"response"`
}

func conversionEvents(w Webhook, req, resp []byte) []Event {
	var in conversionReview
	if json.Unmarshal(req, &in) != nil || in.Request == nil {
		return nil
	}
	var out conversionReview
	err := json.Unmarshal(resp, &out)
	failed := ""
	switch {
	case err != nil || out.Kind != "ConversionReview":
		failed = ": " + fmt.Sprintf(notAConversionReview, clip(resp))
	case out.Response == nil:
		failed = ": " + noConversionResponse
	case out.Response.Result.Status == "Failure":
		failed = ": " + fmt.Sprintf(conversionFailed, out.Response.Result.Message)
	case len(out.Response.ConvertedObjects) != len(in.Request.Objects):
		failed = ": " + fmt.Sprintf(wrongObjectCount, len(out.Response.ConvertedObjects), len(in.Request.Objects))
	}
	var events []Event
	for _, raw := range in.Request.Objects {
		var obj unstructured.Unstructured
		if json.Unmarshal(raw, &obj.Object) != nil {
			continue
		}
		e := Event{
			Actor: w.Actor, Verb: Convert, Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
			Detail: named(w) + fmt.Sprintf(conversionAskedByAPI, apiVersionOnly(obj.GetAPIVersion()),
				apiVersionOnly(in.Request.DesiredAPIVersion)) + failed,
		}
		if failed != "" && !strings.HasPrefix(failed, ": failed") {
			e.Verb = Failed
		}
		events = append(events, e)
	}
	return events
}

// clip shows the start of a body that was not what it should be.
func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return emptyBody
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

func apiVersionOnly(apiVersion string) string {
	_, v, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return apiVersion
	}
	return v
}
