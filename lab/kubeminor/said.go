package kubeminor

// errorIn is an error said in the language of a Where (Where.Lang): its
// text, and the errors it stands for (the package's sentinel, its cause)
// for errors.Is and errors.As. In English its text is the one fmt.Errorf
// with %w would have made of them.
type errorIn struct {
	text  string
	wraps []error
}

func (e *errorIn) Error() string   { return e.text }
func (e *errorIn) Unwrap() []error { return e.wraps }

// errorSaid returns the error text says, standing for wraps.
func errorSaid(text string, wraps ...error) error { return &errorIn{text: text, wraps: wraps} }
