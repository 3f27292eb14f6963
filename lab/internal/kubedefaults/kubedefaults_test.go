package kubedefaults

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	d := Defaults{
		Kubernetes: "v1.99.0",
		Controllers: []Controller{
			{Name: "run-controller", On: true},
			{Name: "left-out-controller", On: true},
			{Name: "off-controller"},
		},
		AdmissionPlugins: []string{"NamespaceLifecycle", "ServiceAccount"},
	}
	for _, c := range []struct {
		name       string
		run        []string
		excluded   map[string]string
		pluginsOff map[string]string
		want       []string // a part of each problem, in order
	}{{
		name:       "as the minor runs, but for the reasons written",
		run:        []string{"run-controller"},
		excluded:   map[string]string{"left-out-controller": "nothing for it to do", "gone-controller": "a controller of another minor"},
		pluginsOff: map[string]string{"ServiceAccount": "a reason"},
	}, {
		name:     "a default-on controller neither run nor excluded",
		run:      []string{"run-controller"},
		excluded: map[string]string{},
		want:     []string{"v1.99.0: controller left-out-controller runs by default"},
	}, {
		name:     "excluded with no reason",
		run:      []string{"run-controller"},
		excluded: map[string]string{"left-out-controller": " "},
		want:     []string{"controller left-out-controller runs by default", "left-out-controller is excluded with no reason"},
	}, {
		name:     "run and excluded; run but unknown",
		run:      []string{"run-controller", "left-out-controller", "new-controller"},
		excluded: map[string]string{"left-out-controller": "a reason"},
		want:     []string{"left-out-controller is both run and excluded", "new-controller is not one of this minor's"},
	}, {
		name:       "an admission plugin turned off: no reason, or not on by default",
		run:        []string{"run-controller"},
		excluded:   map[string]string{"left-out-controller": "a reason"},
		pluginsOff: map[string]string{"ServiceAccount": "", "AlwaysPullImages": "a reason"},
		want:       []string{"AlwaysPullImages is not on by default", "ServiceAccount is turned off with no reason"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			got := check(d, c.run, c.excluded, c.pluginsOff)
			if len(got) != len(c.want) {
				t.Fatalf("problems %q, want %d: %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d: %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

// Every name the lab runs is one name once, and excluded nowhere.
func TestListsAreSets(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Controllers {
		if seen[c] {
			t.Errorf("%s is run twice", c)
		}
		seen[c] = true
		if _, ok := ExcludedControllers[c]; ok {
			t.Errorf("%s is run and excluded", c)
		}
	}
}
