package lang

import (
	"fmt"
	"io/fs"
	"regexp"
)

// Error is an error whose text is a catalogued message: Error says it in
// English, as fmt.Errorf would, and In in any language, the errors it
// formats (%w, %v of an error) said in that language too. errors.Is and
// errors.As see what it wraps, as they see fmt.Errorf's.
type Error struct {
	format string
	args   []any
	err    error // fmt.Errorf(format, args...)
}

// Errorf returns an error whose text is the catalogued message format,
// formatted as fmt.Errorf formats it (%w wraps); the language it is said in
// is decided where it is printed (ErrorIn).
func Errorf(format string, args ...any) error {
	return &Error{format: format, args: args, err: fmt.Errorf(format, args...)}
}

// Error says e in English.
func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns the errors e wraps (its %w arguments).
func (e *Error) Unwrap() []error {
	switch u := e.err.(type) { //nolint:errorlint // what fmt.Errorf returned, not an error it wraps
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	}
	return nil
}

// wrapVerb is fmt.Errorf's %w (%[2]w), which Sprintf does not know.
var wrapVerb = regexp.MustCompile(`%(\[[0-9]+\])?w`)

// In says e in l: its message's translation, each error among its
// arguments said in l (ErrorIn).
func (e *Error) In(l Lang) string {
	if l == EN {
		return e.Error()
	}
	args := make([]any, len(e.args))
	for i, a := range e.args {
		if err, ok := a.(error); ok {
			a = ErrorIn(l, err)
		}
		args[i] = a
	}
	return fmt.Sprintf(wrapVerb.ReplaceAllString(l.Msg(e.format), "%${1}v"), args...)
}

// ErrorIn says err in l: an Error in its words in l; a file's error (open,
// mkdir) with the system's reason in l; an error whose whole text is a
// catalogued message (a sentinel: "unknown node", a system's reason:
// "no such file or directory") translated; any other, another program's
// words, as it is.
func ErrorIn(l Lang, err error) string {
	if l == EN {
		return err.Error()
	}
	// The outermost error only: the words of a wrapper that is not an
	// Error are another program's, and say the errors it wraps too.
	switch e := err.(type) { //nolint:errorlint // the outermost error, not what it wraps
	case *Error:
		return e.In(l)
	case *fs.PathError:
		return l.Msgf("%s %s: %s", e.Op, e.Path, ErrorIn(l, e.Err))
	}
	if l.Translated(err.Error()) {
		return l.Msg(err.Error())
	}
	return err.Error()
}
