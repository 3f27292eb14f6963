package scenarios_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/crdlab/crdlab/fixtures"
	"github.com/crdlab/crdlab/lab/lang"
	"github.com/crdlab/crdlab/scenarios"
)

// answerTable is a lesson's table of answers (lessons/_answers/NAME.yaml):
// for each task, right answers written differently, each of which must
// pass, and wrong ones of each kind a learner makes, each of which must
// leave the task open, saying what is wrong, with a hint that applies.
type answerTable struct {
	Lesson string       `yaml:"lesson"`
	Tasks  []answerTask `yaml:"tasks"`
}

type answerTask struct {
	// Task is the task step's name.
	Task string `yaml:"task"`
	// Before puts back the state the task starts from, before each answer
	// (steps, as in a scenario).
	Before yaml.Node `yaml:"before"`
	Right  []answer  `yaml:"right"`
	Wrong  []answer  `yaml:"wrong"`
}

type answer struct {
	Name string `yaml:"name"`
	// Kind of a wrong answer: nothing (the task's start), too loose, too
	// strict, wrong field, wrong place, after a reset (the lab started
	// again since the tasks before were done: played as a resumed run),
	// wrong cause (the right outcome, made by another actor than the
	// task's text names: by hand instead of by the garbage collector or
	// the learner's controller), vacuous (a check over a set, given an
	// empty set).
	Kind string `yaml:"kind"`
	// Do is what the learner does: steps, as in a scenario.
	Do yaml.Node `yaml:"do"`
	// Controller is the learner's controller, if the answer is one: run
	// in this process after Do's steps, until the verdict
	// (answers_controllers_test.go names them).
	Controller string `yaml:"controller"`
	// Operator is what the learner's Operator writes, after Do's steps
	// (the learner's kubectl): steps, written as its go run writes them
	// (user agent and field manager user-operator).
	Operator yaml.Node `yaml:"operator"`
	// Crdlab is what crdlab itself wrote, before Do's steps: another
	// lesson's steps, the lab's own objects (played as the lesson's own
	// steps are). An answer with crdlab steps arrives from another path
	// (fromAnotherPath): the state another lesson, another path through
	// the course, or the lab left, which the task must judge as it judges
	// the learner's own.
	Crdlab yaml.Node `yaml:"crdlab"`
	// Refused: the apiserver refuses the learner's write itself.
	Refused bool `yaml:"refused"`
	// Refusal, of a refused answer: what the apiserver's refusal says
	// (a part of its message), which the answer's hint quotes, in both
	// languages, so that a learner who reads it finds the hint for it.
	Refusal string `yaml:"refusal"`
	// Says: what the lesson's "not yet" must name (each, in English).
	Says []string `yaml:"says"`
	// Hint is the hint (1-based) that applies to this wrong answer, and
	// HintSays what it must say.
	Hint     int    `yaml:"hint"`
	HintSays string `yaml:"hintSays"`
}

var wrongKinds = []string{"nothing", "too loose", "too strict", "wrong field", "wrong place", "after a reset", "wrong cause", "vacuous"}

const (
	// verdictWait bounds the wait for a task's verdict on an answer: the
	// apiserver serves a CRD's new schema, a controller acts, within it.
	// The slowest is the storage version migrator (versions-admission on
	// 1.37+): it starts once the garbage collector's cache of the resource
	// has reached the migration's resourceVersion, which in a quiet lab
	// comes with a watch bookmark (once a minute), and its workqueue's
	// backoff doubles meanwhile, so that it may start up to twice that
	// late (~40 s seen on a quiet machine; over 45 s in a loaded CI run).
	verdictWait = 150 * time.Second
	// settle is how long a wrong answer must leave its task open after
	// the learner's last write: the apiserver takes a CRD's new schema
	// within milliseconds; a check that passed a wrong answer late would
	// pass it within this.
	settle = 2 * time.Second
)

func loadAnswers(lesson string) *answerTable {
	GinkgoHelper()
	data, err := os.ReadFile(filepath.Join("lessons", "_answers", lesson+".yaml"))
	Expect(err).NotTo(HaveOccurred(), "lesson %s has no table of answers", lesson)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var t answerTable
	Expect(dec.Decode(&t)).To(Succeed(), "lessons/_answers/%s.yaml", lesson)
	Expect(t.Lesson).To(Equal(lesson))
	return &t
}

// steps parses node, a list of steps, as the steps of a scenario whose
// files are the answer table's (lessons/_answers/LESSON/), then the
// lesson's, then the repository's fixtures.
func steps(lesson, what string, node yaml.Node) *scenarios.Scenario {
	GinkgoHelper()
	if node.Kind == 0 {
		node = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	}
	doc := map[string]any{
		"apiVersion": "crdlab.dev/v1alpha1", "kind": "Scenario",
		"metadata": map[string]any{"name": "answer"},
		"spec":     map[string]any{"title": what, "steps": &node},
	}
	data, err := yaml.Marshal(doc)
	Expect(err).NotTo(HaveOccurred())
	s, err := scenarios.Parse(lesson+": "+what, data, func(f string) ([]byte, error) {
		data, err := os.ReadFile(filepath.Join("lessons", "_answers", lesson, f))
		if errors.Is(err, os.ErrNotExist) {
			data, err = os.ReadFile(filepath.Join("lessons", "_files", lesson, f))
		}
		if rest, ok := strings.CutPrefix(f, "fixtures/"); ok && errors.Is(err, os.ErrNotExist) {
			return fixtures.FS.ReadFile(rest)
		}
		return data, err
	})
	if len(node.Content) == 0 && err != nil {
		return nil // no steps: the learner does nothing
	}
	Expect(err).NotTo(HaveOccurred())
	return s
}

// uidOf is "${uid:KIND/NAME}" in an answer's steps: the uid of that
// object of the answer's namespace when the step runs (an owner reference
// names its owner's uid, which changes each time the table makes the
// owner again).
var uidOf = regexp.MustCompile(`\$\{uid:(User|ConfigMap)/([a-z0-9.-]+)\}`)

// play plays steps (a list, as in a scenario) with the player, as the
// learner's kubectl writes them; steps that name a uid are parsed one at
// a time, each when the steps before it have made the object it names.
func play(ctx context.Context, p *scenarios.Player, lesson, what string, node yaml.Node, ns string) error {
	GinkgoHelper()
	return playAs(ctx, p, lesson, what, node, ns, "")
}

// playAs is play, as the learner's program controller writes (""; their
// kubectl; "crdlab": crdlab itself, as the lesson's own steps).
// playAnswer plays an answer's writes as their authors make them: its
// crdlab steps as the lesson itself, its own as the learner's kubectl, its
// operator steps as the learner's Operator.
func playAnswer(ctx context.Context, p *scenarios.Player, lesson, task string, a answer, ns string) error {
	if a.Crdlab.Kind != 0 {
		if err := playAs(ctx, p, lesson, task+": "+a.Name+" (crdlab)", a.Crdlab, ns, "crdlab"); err != nil {
			return err
		}
	}
	if err := play(ctx, p, lesson, task+": "+a.Name, a.Do, ns); err != nil {
		return err
	}
	if a.Operator.Kind != 0 {
		return playAs(ctx, p, lesson, task+": "+a.Name+" (the Operator)", a.Operator, ns, "user-operator")
	}
	return nil
}

func playAs(ctx context.Context, p *scenarios.Player, lesson, what string, node yaml.Node, ns, controller string) error {
	GinkgoHelper()
	var raw []byte
	if node.Kind != 0 {
		var err error
		raw, err = yaml.Marshal(&node)
		Expect(err).NotTo(HaveOccurred())
	}
	if !uidOf.Match(raw) {
		s := steps(lesson, what, node)
		if s == nil {
			return nil // no steps: the learner does nothing
		}
		return doAs(ctx, p, s, controller)
	}
	apiVersions := map[string]string{"User": "auth.ilinux.io/v1beta1", "ConfigMap": "v1"}
	for i, st := range node.Content {
		raw, err := yaml.Marshal(st)
		Expect(err).NotTo(HaveOccurred())
		raw = uidOf.ReplaceAllFunc(raw, func(m []byte) []byte {
			sub := uidOf.FindSubmatch(m)
			o := &unstructured.Unstructured{}
			o.SetAPIVersion(apiVersions[string(sub[1])])
			o.SetKind(string(sub[1]))
			Expect(shared.Client().Get(ctx, client.ObjectKey{Namespace: ns, Name: string(sub[2])}, o)).To(Succeed(), "%s: step %d: %s", what, i+1, m)
			return []byte(o.GetUID())
		})
		var one yaml.Node
		Expect(yaml.Unmarshal(raw, &one)).To(Succeed())
		seq := yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{one.Content[0]}}
		s := steps(lesson, fmt.Sprintf("%s, step %d", what, i+1), seq)
		if err := doAs(ctx, p, s, controller); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return nil
}

func doAs(ctx context.Context, p *scenarios.Player, s *scenarios.Scenario, controller string) error {
	switch controller {
	case "":
		return p.DoAsLearner(ctx, s, s.Spec.Steps)
	case "crdlab":
		return p.Do(ctx, s, s.Spec.Steps)
	}
	return p.DoAsController(ctx, s, s.Spec.Steps, controller)
}

// keep saves the lab's object now, and puts it back as it was when the
// spec ends: lessons delete and replace the lab's own.
func keep(ctx context.Context, apiVersion, kind, name string) {
	GinkgoHelper()
	c := shared.Client()
	saved := &unstructured.Unstructured{}
	saved.SetAPIVersion(apiVersion)
	saved.SetKind(kind)
	Expect(c.Get(ctx, client.ObjectKey{Name: name}, saved)).To(Succeed())
	for _, f := range []string{"resourceVersion", "uid", "creationTimestamp", "generation", "managedFields"} {
		unstructured.RemoveNestedField(saved.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(saved.Object, "status")
	DeferCleanup(func(ctx context.Context) {
		cur := saved.DeepCopy()
		err := c.Delete(ctx, cur)
		Expect(client.IgnoreNotFound(err)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: name}, cur.DeepCopy()))
		}).WithContext(ctx).WithTimeout(time.Minute).Should(BeTrue(), "%s %s is not gone", kind, name)
		Expect(c.Create(ctx, saved.DeepCopy())).To(Succeed(), "putting back the lab's %s %s", kind, name)
	})
}

// removeAtEnd deletes the object, if there is one, when the spec ends: a
// lesson's admission policy, left by a table that failed half-way, would
// refuse the writes of the specs after it.
func removeAtEnd(apiVersion, kind, name string) {
	DeferCleanup(func(ctx context.Context) {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetName(name)
		Expect(client.IgnoreNotFound(shared.Client().Delete(ctx, u))).To(Succeed(), "removing %s %s", kind, name)
	})
}

// playAnswers plays a lesson's table against the shared lab, in a
// namespace of its own: the lesson's steps in order; at each task, every
// answer of the table after the task's before steps, each checked for its
// verdict; then a right answer, for the steps after.
func playAnswers(ctx context.Context, name string) {
	lesson, err := scenarios.LoadLesson(name)
	Expect(err).NotTo(HaveOccurred())
	table := loadAnswers(name)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "crdlab-answers-" + name + "-"}}
	Expect(shared.Client().Create(ctx, ns)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(shared.Client().Delete(ctx, ns)).To(Succeed()) })
	p, err := scenarios.NewPlayer(lesson, target(), ns.Name)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(p.Close)
	Expect(p.Start(ctx)).To(Succeed(), "%s: the lesson's start (spec.start)", name)
	// A Chinese learner's lesson, checked at each verdict: the same, said
	// in Chinese.
	zh, lessonZH, err := scenarios.NewPlayerIn(lesson, target(), ns.Name, lang.ZH)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(zh.Close)

	played := map[string]bool{}
	for i := range lesson.Spec.Steps {
		st := &lesson.Spec.Steps[i]
		if st.Task == nil {
			if st.Narrate == "" {
				Expect(p.Do(ctx, lesson, lesson.Spec.Steps[i:i+1])).To(Succeed(), "%s: step %d", name, i+1)
			}
			continue
		}
		at := slices.IndexFunc(table.Tasks, func(t answerTask) bool { return t.Task == st.Name })
		Expect(at).To(BeNumerically(">=", 0), "%s: task %q has no answers in the table", name, st.Name)
		task := table.Tasks[at]
		played[task.Task] = true
		if !p.Applies(st) {
			By(fmt.Sprintf("%s: not on this lab's minor (kubernetes: %q)", task.Task, st.Kubernetes))
			continue
		}
		Expect(len(task.Right)).To(BeNumerically(">=", 2), "%s: task %q: want right answers written differently", name, task.Task)
		Expect(len(task.Wrong)).To(BeNumerically(">=", 2), "%s: task %q: want wrong answers of each kind", name, task.Task)
		Expect(tableLacks(name, st.Task, task)).To(BeEmpty(), "%s: task %q: the table lacks", name, task.Task)
		reset := func() {
			GinkgoHelper()
			Expect(play(ctx, p, name, task.Task+": before", task.Before, ns.Name)).To(Succeed(), "%s: task %q: before", name, task.Task)
		}
		// do plays the answer; done stops its controller, if any, once
		// its verdict is in.
		do := func(a answer) (done func()) {
			GinkgoHelper()
			err := playAnswer(ctx, p, name, task.Task, a, ns.Name)
			if a.Refused {
				Expect(err).To(HaveOccurred(), "%s: %q: the apiserver accepted the learner's write, which the table says it refuses", task.Task, a.Name)
				Expect(err.Error()).To(ContainSubstring(a.Refusal), "%s: %q: the apiserver's refusal, which hint %d quotes", task.Task, a.Name, a.Hint)
				return func() {}
			}
			Expect(err).NotTo(HaveOccurred(), "%s: %q: the learner's write", task.Task, a.Name)
			if a.Controller == "" {
				return func() {}
			}
			return runLearnerController(ctx, a.Controller, ns.Name)
		}
		for _, a := range task.Wrong {
			if !chosen(a) {
				continue
			}
			By(fmt.Sprintf("%s: wrong (%s): %s", task.Task, a.Kind, a.Name))
			Expect(wrongKinds).To(ContainElement(a.Kind), "%s: %q: its kind", task.Task, a.Name)
			Expect(a.Says).NotTo(BeEmpty(), "%s: %q: what must the lesson say is wrong?", task.Task, a.Name)
			if a.Kind == "after a reset" {
				reset()
				done := do(a)
				resumed(ctx, lesson, ns.Name, i+1, a)
				done()
				continue
			}
			Expect(a.Hint).To(BeNumerically(">=", 1), "%s: %q: which hint applies?", task.Task, a.Name)
			Expect(a.Hint).To(BeNumerically("<=", len(st.Task.Hints)), "%s: %q: hint %d of %d", task.Task, a.Name, a.Hint, len(st.Task.Hints))
			Expect(st.Task.Hints[a.Hint-1]).To(ContainSubstring(a.HintSays), "%s: %q: hint %d does not apply", task.Task, a.Name, a.Hint)
			reset()
			done := do(a)
			stillOpen(ctx, p, st.Task, task.Task, a)
			inChinese(ctx, zh, lessonZH.Spec.Steps[i].Task, task.Task, a, false)
			done()
		}
		for _, a := range task.Right {
			if !chosen(a) {
				continue
			}
			By(fmt.Sprintf("%s: right: %s", task.Task, a.Name))
			reset()
			done := do(a)
			passes(ctx, p, st.Task, task.Task, a)
			inChinese(ctx, zh, lessonZH.Spec.Steps[i].Task, task.Task, a, true)
			done()
		}
		reset()
		done := do(task.Right[0]) // the state the steps after start from
		passes(ctx, p, st.Task, task.Task, task.Right[0])
		done() // a controller of this task's would answer the next one's
	}
	for _, t := range table.Tasks {
		Expect(played).To(HaveKey(t.Task), "%s: the table has answers for %q, which is no task of the lesson", name, t.Task)
	}
}

// noActor lists the tasks ("lesson: task") whose checks name no actor,
// each with the reason no actor can be named: none today. Every other
// task has a check with by or notBy (who must have done the work, or who
// must not have), and so a "wrong cause" answer.
var noActor = map[string]string{}

// fromAnotherPath says whether an answer (right or wrong) arrives from
// another path: it has crdlab steps (the state another lesson, another
// path through the course, or the lab left, written as crdlab writes it),
// or it is of kind "after a reset" (the lab started again since the tasks
// before were done).
func fromAnotherPath(a answer) bool {
	return (a.Crdlab.Kind != 0 && len(a.Crdlab.Content) > 0) || a.Kind == "after a reset"
}

// tableLacks returns what a task's table lacks, which every lesson's table
// must have: the kinds of wrong answer its checks call for (wantedKinds);
// a check that names who did it (by or notBy), unless noActor says why
// none can; and an answer, right or wrong, from another path
// (fromAnotherPath).
func tableLacks(lesson string, t *scenarios.Task, table answerTask) []string {
	var lacks []string
	if kinds := wantedKinds(t, table); len(kinds) > 0 {
		lacks = append(lacks, fmt.Sprintf("wrong answers of kinds %q", kinds))
	}
	named := slices.ContainsFunc(t.Check, func(c scenarios.Check) bool { return c.By != "" || len(c.NotBy) > 0 })
	if _, exempt := noActor[lesson+": "+table.Task]; !named && !exempt {
		lacks = append(lacks, "a check that names who must have done the work (by or notBy)")
	}
	all := slices.Concat(table.Right, table.Wrong)
	if !slices.ContainsFunc(all, fromAnotherPath) {
		lacks = append(lacks, `an answer from another path (crdlab steps, or kind "after a reset")`)
	}
	return lacks
}

// wantedKinds returns the kinds of wrong answer a task's checks call for
// and its table lacks: a check that names who did it (by, notBy), a
// wrong cause; a check over a set, a vacuous answer, unless the set may
// be empty (allowEmpty).
func wantedKinds(t *scenarios.Task, table answerTask) []string {
	var want []string
	for _, c := range t.Check {
		if c.By != "" || len(c.NotBy) > 0 {
			want = append(want, "wrong cause")
		}
		if e := c.Expect; e != nil && e.Resource != nil && e.Resource.Name == "" && e.CEL != "" && !e.AllowEmpty {
			want = append(want, "vacuous")
		}
	}
	var lacks []string
	for _, k := range want {
		has := slices.ContainsFunc(table.Wrong, func(a answer) bool { return a.Kind == k })
		if !has && !slices.Contains(lacks, k) {
			lacks = append(lacks, k)
		}
	}
	return lacks
}

// chosen reports whether to play the answer: every one, or with
// CRDLAB_ANSWERS set, those whose name has it (to try one answer while
// writing a table).
func chosen(a answer) bool {
	f := os.Getenv("CRDLAB_ANSWERS")
	return f == "" || strings.Contains(a.Name, f)
}

// passes checks that the task holds after a right answer, in time.
func passes(ctx context.Context, p *scenarios.Player, t *scenarios.Task, task string, a answer) {
	GinkgoHelper()
	last := ""
	Eventually(func() bool {
		ok, why := p.Check(ctx, t)
		last = why
		return ok
	}).WithContext(ctx).WithTimeout(verdictWait).WithPolling(250*time.Millisecond).Should(BeTrue(),
		func() string {
			return fmt.Sprintf("%s: the right answer %q does not pass; the lesson says:\n%s%s", task, a.Name, last, linesOfChecks(p, t))
		})
}

// linesOfChecks returns the timeline's lines the player has seen of each
// object a check of t names who made (by, notBy), for a right answer's
// failure: the cause a check reads is there.
func linesOfChecks(p *scenarios.Player, t *scenarios.Task) string {
	var b strings.Builder
	for _, c := range t.Check {
		if c.Expect == nil || c.Expect.Resource == nil || c.Expect.Resource.Name == "" || c.By == "" && len(c.NotBy) == 0 {
			continue
		}
		ref := c.Expect.Resource
		fmt.Fprintf(&b, "\nthe timeline's lines of %s %s:", ref.Kind, ref.Name)
		for _, l := range p.Lines(ref.Kind, ref.Name) {
			b.WriteString("\n  " + l)
		}
	}
	return b.String()
}

// inChinese checks the task again, as a Chinese learner's lesson does,
// right after its verdict in English: the same verdict (a right answer is
// waited for as passes does: a check that deletes and waits for a
// controller starts again), and a "not yet" with no English sentence left
// in it (lang.Bare: three English words in a row outside quotes, commands
// and an object's YAML).
func inChinese(ctx context.Context, zh *scenarios.Player, t *scenarios.Task, task string, a answer, pass bool) {
	GinkgoHelper()
	if pass {
		passes(ctx, zh, t, task+" (in Chinese)", a)
		return
	}
	ok, why := zh.Check(ctx, t)
	Expect(ok).To(BeFalse(), "%s: the wrong answer %q passes in Chinese", task, a.Name)
	Expect(lang.Bare(why)).To(BeEmpty(), "%s: %q: English in what the Chinese lesson says:\n%s", task, a.Name, why)
}

// stillOpen checks that the task stays open after a wrong answer, and that
// what the lesson says names what is wrong.
func stillOpen(ctx context.Context, p *scenarios.Player, t *scenarios.Task, task string, a answer) {
	GinkgoHelper()
	written := time.Now()
	last := ""
	Eventually(func(g Gomega) {
		ok, why := p.Check(ctx, t)
		last = why
		Expect(ok).To(BeFalse(), "%s: the wrong answer %q (%s) passes", task, a.Name, a.Kind)
		for _, s := range a.Says {
			g.Expect(why).To(ContainSubstring(s))
		}
		g.Expect(time.Since(written)).To(BeNumerically(">=", settle))
	}).WithContext(ctx).WithTimeout(verdictWait).WithPolling(250*time.Millisecond).Should(Succeed(),
		func() string {
			return fmt.Sprintf("%s: after the wrong answer %q (%s), the lesson does not say %q:\n%s", task, a.Name, a.Kind, a.Says, last)
		})
}

// resumed plays a wrong answer of kind "after a reset": the tasks before
// step were done in a lab that was started again since; the lesson, run
// now, must not pass the task with no work, and must say why.
func resumed(ctx context.Context, lesson *scenarios.Scenario, ns string, step int, a answer) {
	GinkgoHelper()
	done := map[int]bool{}
	for i := range step - 1 {
		if lesson.Spec.Steps[i].Task != nil {
			done[i+1] = true
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	entries := make(chan scenarios.Entry, 1000)
	ended := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(ended)
		_, err := scenarios.Run(runCtx, lesson, target(), scenarios.Options{
			Listener: func(e scenarios.Entry) { entries <- e },
			Lesson:   &scenarios.LessonOptions{Namespace: ns, Files: "${FILES}", Done: done, DoneIn: "the lab before it was started again"},
		})
		Expect(err).NotTo(HaveOccurred())
	}()
	var said []string
	deadline := time.After(verdictWait)
	for waiting := false; !waiting; {
		select {
		case e := <-entries:
			if e.Type == "check" && e.Step == step && e.Status == scenarios.Passed {
				Fail(fmt.Sprintf("%q: after a reset, the task of step %d passed with no work", a.Name, step))
			}
			if e.Type == "note" || e.Type == "check" {
				said = append(said, e.Text)
			}
			waiting = e.Type == "check" && e.Status == scenarios.Running
		case <-deadline:
			Fail(fmt.Sprintf("%q: no task waits within %s; the lesson said:\n%s", a.Name, verdictWait, strings.Join(said, "\n")))
		}
	}
	for _, s := range a.Says {
		Expect(strings.Join(said, "\n")).To(ContainSubstring(s), "%q: what the resumed lesson says", a.Name)
	}
	cancel()
	<-ended
}

var _ = Describe("the lessons' answer tables", func() {
	for _, name := range scenarios.LessonNames() {
		It("plays "+name+": every right answer passes, every wrong one stays open and says why", func(ctx context.Context) {
			// What the lessons delete and replace of the lab's own.
			keep(ctx, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "users.auth.ilinux.io")
			keep(ctx, "apiregistration.k8s.io/v1", "APIService", "v1alpha1.lab.crdlab.dev")
			// What versions-admission's learner writes, which its last steps remove.
			for _, b := range []string{"user-email-domain", "user-email-domain-everywhere"} {
				removeAtEnd("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", b)
			}
			removeAtEnd("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "user-email-domain")
			playAnswers(ctx, name)
		}, NodeTimeout(10*time.Minute))
	}
})

// The answers that showed issue 38's defects stay in the tables, on their
// side: each failed against the lessons before it (a one-sided check, a
// check that did not read shortNames, a message matched as text, a
// resumed task that passed on the lab's own CRD after a reset).
func TestAnswersOfIssue38(t *testing.T) {
	for _, d := range []struct{ lesson, task, answer string }{
		{"crd-validation", "userID at most 65535, groups required", "wrong: userID made a string"},
		{"crd-basics", "a User, found by its short name", "wrong: admin created, but the CRD was written without short names"},
		{"crd-validation", "userID at most 65535, groups required", "right: groups required by a CEL rule instead of required"},
		{"crd-basics", "kubectl get all lists Users", "wrong: the lab was started again after the tasks before; its own User CRD has categories already"},
		{"operator", "observedGeneration catches up with a spec change", "wrong: the status written once, when there was none"},
		{"operator", "delete bob, and the directory is cleaned up first", "wrong: the finalizer never taken off, bob stays Terminating"},
		{"operator", "delete alice, and the garbage collector deletes her ConfigMap", "wrong: her ConfigMap made with no owner reference"},
	} {
		data, err := os.ReadFile(filepath.Join("lessons", "_answers", d.lesson+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var table answerTable
		if err := yaml.Unmarshal(data, &table); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, task := range table.Tasks {
			if task.Task != d.task {
				continue
			}
			for side, answers := range map[string][]answer{"right": task.Right, "wrong": task.Wrong} {
				for _, a := range answers {
					found = found || side+": "+a.Name == d.answer
				}
			}
		}
		if !found {
			t.Errorf("%s, task %q: the table lacks the answer %q", d.lesson, d.task, d.answer)
		}
	}
}

// Every lesson's table decodes (strictly), each wrong answer is of a kind
// the suite knows, and every task of the lesson has its answers, with what
// tableLacks demands: a check that names who did the work, a "wrong cause"
// answer for it, a "vacuous" one for a check over a set, and an answer from
// another path. Found without a lab, before the suite plays them.
func TestAnswerTablesDecode(t *testing.T) {
	for _, name := range scenarios.LessonNames() {
		data, err := os.ReadFile(filepath.Join("lessons", "_answers", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		var table answerTable
		if err := dec.Decode(&table); err != nil {
			t.Errorf("lessons/_answers/%s.yaml: %v", name, err)
			continue
		}
		lesson, err := scenarios.LoadLesson(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range table.Tasks {
			for _, a := range task.Wrong {
				if !slices.Contains(wrongKinds, a.Kind) {
					t.Errorf("%s: %q: kind %q, want one of %q", name, a.Name, a.Kind, wrongKinds)
				}
			}
		}
		for _, st := range lesson.Spec.Steps {
			if st.Task == nil {
				continue
			}
			at := slices.IndexFunc(table.Tasks, func(t answerTask) bool { return t.Task == st.Name })
			if at < 0 {
				t.Errorf("%s: task %q has no answers in the table", name, st.Name)
				continue
			}
			for _, lacks := range tableLacks(name, st.Task, table.Tasks[at]) {
				t.Errorf("%s: task %q: the table lacks %s", name, st.Name, lacks)
			}
		}
	}
	for task, why := range noActor {
		if why == "" {
			t.Errorf("noActor: %q names no reason", task)
		}
	}
}

// A hint exists for every refusal a table's wrong answer produces: each
// answer the apiserver refuses names what its refusal says (refusal, a
// part of the message, checked against the apiserver's when the table is
// played) and a hint that quotes it, in English and in Chinese.
func TestEveryRefusalHasItsHint(t *testing.T) {
	all, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	refusals := 0
	for _, lesson := range all {
		name := lesson.Metadata.Name
		data, err := os.ReadFile(filepath.Join("lessons", "_answers", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var table answerTable
		if err := yaml.Unmarshal(data, &table); err != nil {
			t.Fatal(err)
		}
		zh := lesson.In(lang.ZH)
		for _, task := range table.Tasks {
			i := slices.IndexFunc(lesson.Spec.Steps, func(s scenarios.Step) bool { return s.Name == task.Task && s.Task != nil })
			if i < 0 {
				t.Errorf("%s: %q is no task of the lesson", name, task.Task)
				continue
			}
			for _, a := range task.Wrong {
				if !a.Refused {
					if a.Refusal != "" {
						t.Errorf("%s: %q: %q: a refusal, but the answer is not refused", name, task.Task, a.Name)
					}
					continue
				}
				refusals++
				if a.Refusal == "" {
					t.Errorf("%s: %q: %q: refused, but the table does not say what the refusal says (refusal)", name, task.Task, a.Name)
					continue
				}
				hints := lesson.Spec.Steps[i].Task.Hints
				if a.Hint < 1 || a.Hint > len(hints) {
					t.Errorf("%s: %q: %q: hint %d of %d", name, task.Task, a.Name, a.Hint, len(hints))
					continue
				}
				for _, h := range []struct{ lang, text string }{{"English", hints[a.Hint-1]}, {"Chinese", zh.Spec.Steps[i].Task.Hints[a.Hint-1]}} {
					if !strings.Contains(strings.Join(strings.Fields(h.text), " "), a.Refusal) {
						t.Errorf("%s: %q: %q: hint %d in %s does not quote the refusal %q:\n%s", name, task.Task, a.Name, a.Hint, h.lang, a.Refusal, h.text)
					}
				}
			}
		}
	}
	if refusals == 0 {
		t.Error("no table has a refused answer: the test checks nothing")
	}
}
