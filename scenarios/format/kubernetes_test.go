package format

import (
	"strings"
	"testing"

	"github.com/crdlab/crdlab/lab/kubeminor"
	"github.com/crdlab/crdlab/lab/lang"
)

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

const minorsLesson = `apiVersion: crdlab.dev/v1alpha1
kind: Lesson
metadata: {name: minors}
spec:
  title: a lesson of two minors
  steps:
  - narrate: Your lab runs the storage version migrator.
    kubernetes: ">=1.37"
    zh: {narrate: 你的实验环境运行着存储版本迁移控制器。}
  - name: migrated by the migrator
    kubernetes: ">=1.37"
    task:
      text: apply the migration
      check: [{expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: color}}}}]
      hints: [kubectl get cm color]
    zh: {name: 由迁移控制器迁移, task: {text: 提交迁移, hints: [kubectl get cm color]}}
  - name: migrated by hand
    kubernetes: "<1.37"
    task:
      text: rewrite every object
      check: [{expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: color}}}}]
      hints: [kubectl get cm color]
    zh: {name: 手工迁移, task: {text: 重写每一个对象, hints: [kubectl get cm color]}}
  - name: of every minor
    expect: {object: {apiVersion: v1, kind: ConfigMap, metadata: {name: color}}}
    zh: {name: 每个次版本都有}
`

// crdlab scenario explain reads no cluster, and the reader may have no lab
// yet: it lists every step, each of some minors marked with them, and says
// once what the mark means and which minor crdlab up starts.
func TestExplainMarksTheStepsOfSomeMinors(t *testing.T) {
	s, err := Parse("minors.yaml", []byte(minorsLesson), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		l      lang.Lang
		legend string // in the text with its spaces and line breaks gone
		want   []string
	}{
		{lang.EN, "crdlabupstarts" + kubeminor.BuiltIn, []string{
			"      (Kubernetes >=1.37) Your lab runs the storage version migrator.\n",
			"   1. (Kubernetes >=1.37) migrated by the migrator\n",
			"   2. (Kubernetes <1.37) migrated by hand\n",
			"   3. of every minor\n",
		}},
		{lang.ZH, "crdlabup默认启动" + kubeminor.BuiltIn, []string{
			"      （Kubernetes >=1.37）你的实验环境运行着存储版本迁移控制器。\n",
			"   1. （Kubernetes >=1.37）由迁移控制器迁移\n",
			"   2. （Kubernetes <1.37）手工迁移\n",
			"   3. 每个次版本都有\n",
		}},
	} {
		var b strings.Builder
		Explain(&b, s.In(tc.l))
		if !strings.Contains(strings.Join(strings.Fields(b.String()), ""), tc.legend) {
			t.Errorf("explain in %s does not say which minor crdlab up starts:\n%s", tc.l, b.String())
		}
		for _, want := range tc.want {
			if !strings.Contains(b.String(), want) {
				t.Errorf("explain in %s lacks %q:\n%s", tc.l, want, b.String())
			}
		}
	}
	// A scenario of every minor has no legend.
	every, err := Parse("start.yaml", []byte(startLesson), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Explain(&b, every)
	if strings.Contains(b.String(), "(Kubernetes") {
		t.Errorf("explain of a scenario of every minor speaks of minors:\n%s", b.String())
	}
}
