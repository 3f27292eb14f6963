package scenarios

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"

	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/lab/timeline"
)

// A refusal is matched by what it is about (field and reason of the
// apiserver's causes), not by its message: a cause on the field, inside
// it or on a level above it (a CEL rule on spec) matches; a cause on
// another field, or of another reason, does not.
func TestRefusalCauses(t *testing.T) {
	users := schema.GroupKind{Group: "auth.ilinux.io", Kind: "User"}
	invalid := func(errs ...*field.Error) error { return apierrors.NewInvalid(users, "x", errs) }
	tooBig := invalid(field.Invalid(field.NewPath("spec", "userID"), 999999, "should be less than or equal to 65535"))
	noGroups := invalid(field.Required(field.NewPath("spec", "groups"), ""))
	celOnSpec := invalid(field.Invalid(field.NewPath("spec"), "object", "groups are required"))
	typeString := invalid(field.TypeInvalid(field.NewPath("spec", "userID"), "integer", "must be of type string"))
	for _, tc := range []struct {
		name  string
		want  []Cause
		err   error
		wrong string // what the refusal lacks; "" if it matches
	}{
		{"maximum", []Cause{{Field: "spec.userID"}}, tooBig, ""},
		{"maximum, reason", []Cause{{Field: "spec.userID", Reason: "FieldValueInvalid"}}, tooBig, ""},
		{"a type instead of a maximum", []Cause{{Field: "spec.userID", Reason: "FieldValueInvalid"}}, typeString, "spec.userID (FieldValueInvalid)"},
		{"required", []Cause{{Field: "spec.groups"}}, noGroups, ""},
		{"required, by a CEL rule on spec", []Cause{{Field: "spec.groups"}}, celOnSpec, ""},
		{"another field", []Cause{{Field: "spec.groups"}}, tooBig, "spec.groups"},
		{"a field that starts alike", []Cause{{Field: "spec.user"}}, tooBig, "spec.user"},
		{"no causes at all", []Cause{{Field: "spec.userID"}}, apierrors.NewForbidden(schema.GroupResource{Resource: "users"}, "x", nil), "spec.userID"},
	} {
		_, err := refusal(lang.EN, &ExpectError{Causes: tc.want}, tc.err)
		switch {
		case tc.wrong == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wrong != "" && (err == nil || !strings.Contains(err.Error(), "refused, but not for "+tc.wrong+":")):
			t.Errorf("%s: got %v, want it refused but not for %s", tc.name, err, tc.wrong)
		}
	}
}

// A write refused because the user's webhook server cannot be reached: the
// runner's refusal text says the lab's account of it (inside the
// apiserver's "failed calling webhook" error) in the reader's language, as
// the timeline does; a step's message is matched against what the
// apiserver said, and its status is still read from the error. The error
// is made as the apiserver makes it.
func TestRefusalSaysAnUnreachableWebhookInChinese(t *testing.T) {
	why := fmt.Sprintf(timeline.NothingServes, "127.0.0.1:9443", "/tmp/crdlab-1/webhook-certs")
	refused := apierrors.NewInternalError(&webhookutil.ErrCallingWebhook{
		WebhookName: "vuser.kb.io",
		Reason: fmt.Errorf("failed to call webhook: %w", apierrors.NewGenericServerResponse(http.StatusBadGateway, http.MethodPost,
			schema.GroupResource{}, "", timeline.FrontSays+why, 0, true)),
	})
	err := fmt.Errorf("user/tony: %w", refused) // as an apply step returns it
	const zh = "127.0.0.1:9443 上没有服务在监听（连接被拒绝）：请在那里启动你的 webhook 服务器"

	note, ferr := refusal(lang.ZH, &ExpectError{Code: 500, Message: "nothing serves on 127.0.0.1:9443"}, err)
	if ferr != nil || !strings.Contains(note, zh) || !strings.Contains(note, `failed calling webhook "vuser.kb.io"`) {
		t.Errorf("refused as expected, in Chinese: %q, %v; want the account in Chinese inside the apiserver's words", note, ferr)
	}
	if note, _ := refusal(lang.EN, &ExpectError{Code: 500}, err); !strings.Contains(note, why) {
		t.Errorf("refused as expected, in English: %q, want the account as the front said it", note)
	}
	_, ferr = refusal(lang.ZH, &ExpectError{Code: 422}, err)
	var status apierrors.APIStatus
	if ferr == nil || !strings.Contains(ferr.Error(), "500") || !strings.Contains(ferr.Error(), zh) || !errors.As(ferr, &status) {
		t.Errorf("refused with another status, in Chinese: %v; want the status, the account in Chinese, and the apiserver's error wrapped", ferr)
	}
	if got := saidIn(lang.ZH, err).Error(); !strings.HasPrefix(got, "user/tony: Internal error occurred: ") || !strings.Contains(got, zh) {
		t.Errorf("a failed step's message in Chinese: %q", got)
	}
	other := errors.New("user/tony: admission webhook \"vuser.kb.io\" denied the request: no")
	if got := saidIn(lang.ZH, other); got.Error() != other.Error() || !errors.Is(got, other) {
		t.Errorf("an error without the lab's account: %v, want it as it is", got)
	}
}
