package format

import (
	"fmt"
	"strings"

	"github.com/crdlab/crdlab/lab/kubeminor"
)

// Minors is a range of Kubernetes minors, as a step's kubernetes field
// writes it: one or two bounds, each an operator (>=, >, <=, <, =) and a
// minor, separated by a comma: ">=1.37", "<1.37", ">=1.36, <1.38"; a
// minor alone is that minor.
type Minors struct {
	bounds []bound
}

type bound struct {
	op    string
	minor int // 37 for 1.37: kubeminor.Version.Number
}

// rangeOps are a bound's operators, longest first (">=" before ">").
var rangeOps = []string{">=", "<=", ">", "<", "="}

// ParseMinors reads a range of Kubernetes minors (Minors). Minors are
// read by kubeminor.ParseVersion, the one reader of a version, and must be
// minors alone (1.37, not v1.37.0).
func ParseMinors(s string) (Minors, error) {
	var m Minors
	parts := strings.Split(s, ",")
	if strings.TrimSpace(s) == "" || len(parts) > 2 {
		return m, fmt.Errorf("want one or two bounds, as \">=1.37\", \"<1.37\" or \">=1.36, <1.38\"")
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		op := "="
		for _, o := range rangeOps {
			if rest, ok := strings.CutPrefix(p, o); ok {
				op, p = o, strings.TrimSpace(rest)
				break
			}
		}
		v, ok := kubeminor.ParseVersion(p)
		if !ok || v.V || v.Rest != "" {
			return m, fmt.Errorf("%q is not a Kubernetes minor (want one as 1.37, after >=, >, <=, < or =)", p)
		}
		m.bounds = append(m.bounds, bound{op: op, minor: v.Number})
	}
	return m, nil
}

// Contains reports whether a minor ("1.37"), or the minor of a version as
// the apiserver reports it ("v1.37.0"), is in the range; false when it is
// not a Kubernetes version.
func (m Minors) Contains(version string) bool {
	v, ok := kubeminor.ParseVersion(version)
	if !ok {
		return false
	}
	for _, b := range m.bounds {
		var in bool
		switch b.op {
		case ">=":
			in = v.Number >= b.minor
		case ">":
			in = v.Number > b.minor
		case "<=":
			in = v.Number <= b.minor
		case "<":
			in = v.Number < b.minor
		default:
			in = v.Number == b.minor
		}
		if !in {
			return false
		}
	}
	return true
}

// Applies reports whether the step runs on an apiserver that reports
// version (its /version's gitVersion): it has no kubernetes field, or
// version's minor is in it.
func (st *Step) Applies(version string) bool {
	if st.Kubernetes == "" {
		return true
	}
	m, err := ParseMinors(st.Kubernetes)
	return err == nil && m.Contains(version)
}

// checkMinors checks a step's kubernetes field: a range (ParseMinors)
// that holds some minor crdlab serves.
func checkMinors(s string) string {
	m, err := ParseMinors(s)
	if err != nil {
		return fmt.Sprintf("kubernetes %q: %v", s, err)
	}
	served := kubeminor.Supported()
	for _, minor := range served {
		if m.Contains(minor) {
			return ""
		}
	}
	return fmt.Sprintf("kubernetes %q: no minor crdlab serves (%s) is in it: the step would never run", s, strings.Join(served, ", "))
}

// HasMinorSteps reports whether some step runs only on some minors (its
// kubernetes field).
func (s *Scenario) HasMinorSteps() bool {
	for i := range s.Spec.Steps {
		if s.Spec.Steps[i].Kubernetes != "" {
			return true
		}
	}
	return false
}
