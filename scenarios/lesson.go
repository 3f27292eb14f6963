package scenarios

import (
	"strings"
)

// LessonOptions configures the run of a lesson (a file of kind Lesson):
// where the learner works, and how the learner and the run talk.
type LessonOptions struct {
	// Namespace is the learner's namespace: ${NAMESPACE}, where objects
	// without a namespace go and whose changes the timeline shows. It is
	// used as it is: neither created nor deleted. Default: default.
	Namespace string
	// Files is the folder of the lesson's files on disk (${FILES} in a
	// task's text).
	Files string
	// Hints brings the learner's requests for the next hint, while a
	// task waits; each is answered on its Reply.
	Hints <-chan HintRequest
	// Done says which steps (1-based) are tasks done in an earlier run:
	// they are shown as done, not waited for.
	Done map[int]bool
	// TaskDone, if set, is called as soon as a task is done (its step,
	// 1-based): the caller records the learner's progress.
	TaskDone func(step int)
}

// HintRequest asks the waiting task for its next hint.
type HintRequest struct {
	// Reply receives the hint, or why there is none (buffered by the
	// asker: the run does not wait for it to be read).
	Reply chan<- string
}

// lesson returns the run's lesson options, nil for a scenario.
func (r *runner) lesson() *LessonOptions { return r.opts.Lesson }

// text expands ${FILES} and ${NAMESPACE} in a text the learner reads.
func (r *runner) text(s string) string {
	if l := r.lesson(); l != nil {
		s = strings.ReplaceAll(s, "${FILES}", l.Files)
	}
	return strings.TrimSpace(strings.ReplaceAll(s, namespaceVar, r.ns))
}
