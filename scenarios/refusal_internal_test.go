package scenarios

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdlab/crdlab/lab/lang"
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
