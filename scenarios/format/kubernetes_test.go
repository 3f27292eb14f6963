package format

import "testing"

func TestMinorsContains(t *testing.T) {
	for _, tc := range []struct {
		r       string
		in, out []string
	}{
		{">=1.37", []string{"1.37", "v1.37.0", "v1.38.0-beta.0", "1.40"}, []string{"1.36", "v1.35.8", "", "2.0"}},
		{"<1.37", []string{"1.35", "v1.36.5+abc"}, []string{"1.37", "v1.37.0-rc.1", "x"}},
		{">=1.36, <1.38", []string{"1.36", "1.37"}, []string{"1.35", "1.38"}},
		{"> 1.35,<= 1.36", []string{"1.36"}, []string{"1.35", "1.37"}},
		{"1.36", []string{"v1.36.5"}, []string{"1.35", "1.37"}},
		{"=1.36", []string{"1.36"}, []string{"1.37"}},
	} {
		m, err := ParseMinors(tc.r)
		if err != nil {
			t.Fatalf("%q: %v", tc.r, err)
		}
		for _, v := range tc.in {
			if !m.Contains(v) {
				t.Errorf("%q does not contain %q", tc.r, v)
			}
		}
		for _, v := range tc.out {
			if m.Contains(v) {
				t.Errorf("%q contains %q", tc.r, v)
			}
		}
	}
	for _, bad := range []string{"", ">=", ">=1.37.2", ">=v1.37", "1.37-", "=>1.37", ">=1.35,", ">1, <2", "a, b, c"} {
		if _, err := ParseMinors(bad); err == nil {
			t.Errorf("%q: read as a range", bad)
		}
	}
}

func TestStepApplies(t *testing.T) {
	if !(&Step{}).Applies("v1.35.8") {
		t.Error("a step with no kubernetes field does not apply")
	}
	st := &Step{Kubernetes: ">=1.37"}
	if !st.Applies("v1.37.0") || st.Applies("v1.36.5") || st.Applies("") {
		t.Errorf("%q: applies on v1.37.0 %v, v1.36.5 %v, \"\" %v", st.Kubernetes, st.Applies("v1.37.0"), st.Applies("v1.36.5"), st.Applies(""))
	}
}
