package timeline

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/crdlab/crdlab/lab/lang"
)

// DetailIn returns e's detail in l: the timeline's own words (a deletion
// requested or confirmed, a Pod's state, what a reconcile pass did and what
// woke it, a webhook's answer, or why a webhook call got none) in l's; the
// objects, fields and values in it, and what Kubernetes, a controller or a
// webhook said (an Event's message, an error, a denial), as they are. In
// English, the detail as recorded: the lines are recorded in English
// (logs/timeline.log, the control socket) and said in the reader's
// language when shown, in the terminal and in the web UI (lab/ui sends
// each line's detail in every language).
func DetailIn(l lang.Lang, e Event) string {
	d := e.Detail
	if d == "" || (l != lang.ZH && l != lang.Pseudo) {
		return d
	}
	switch e.Verb {
	case Delete:
		if d == "deletion requested (graceful)" {
			return l.Msg("deletion requested (graceful)")
		}
		if by, ok := strings.CutPrefix(d, "confirmed by "); ok {
			return l.Msgf("confirmed by %s", by)
		}
	case Status, Update:
		if e.Kind == "Pod" && e.Verb == Status {
			return podStateIn(l, d)
		}
		return fieldsIn(l, d)
	case Reconcile:
		return passIn(l, d)
	case Allowed, Denied, Failed, Convert:
		return webhookIn(l, d)
	case "RESET", "RESTARTED", "CRASHED":
		return labDetailIn(l, d)
	}
	return d
}

// The lab's own lines (lab: reset.go, supervise.go), by their words; what
// follows them (a process's exit, etcd's data) is said as it is.
var labDetails = []struct {
	re  *regexp.Regexp
	msg string
}{
	{regexp.MustCompile(`^([0-9]+) objects deleted, ([0-9]+) put back: the DELETEs by \? that follow$`), "%s objects deleted, %s put back: the DELETEs by ? that follow"},
	{regexp.MustCompile(`^healthy again after (\S+) \(restart ([0-9]+)\)((?:; .*)?)$`), "healthy again after %s (restart %s)%s"},
	{regexp.MustCompile(`^(.*); restarting it$`), "%s; restarting it"},
}

// labDetailIn says the detail of a reset, a crash or a restart in l.
func labDetailIn(l lang.Lang, d string) string {
	for _, x := range labDetails {
		if m := x.re.FindStringSubmatch(d); m != nil {
			args := make([]any, len(m)-1)
			for i, a := range m[1:] {
				args[i] = a
			}
			if rest, ok := args[len(args)-1].(string); ok && strings.HasPrefix(rest, "; ") && x.msg == labDetails[1].msg {
				args[len(args)-1] = l.Msg("; ") + rest[2:]
			}
			return l.Msgf(x.msg, args...)
		}
	}
	return d
}

// podStateIn says a Pod's state (podSummary: "Running, Ready") in l.
func podStateIn(l lang.Lang, d string) string {
	parts := strings.Split(d, ", ")
	for i, p := range parts {
		parts[i] = l.Msg(p)
	}
	return strings.Join(parts, l.Msg(", "))
}

var more = regexp.MustCompile(`^\+(\d+) more$`)

// fieldsIn says the changed fields of an update (updateEvent) in l: the
// fields as they are, the count of the others in l.
func fieldsIn(l lang.Lang, d string) string {
	parts := strings.Split(d, ", ")
	if m := more.FindStringSubmatch(parts[len(parts)-1]); m != nil {
		n, _ := strconv.Atoi(m[1])
		parts[len(parts)-1] = l.Msgf("+%d more", n)
	}
	return strings.Join(parts, ", ")
}

// passIn says a reconcile pass's account (lab/server's passEvent, the
// sample operators' tracer) in l: "<writes or no change>[; <error or
// requeue>][; woken by <triggers>]; in <duration>". An error's message,
// which may hold "; ", stays as it is.
func passIn(l lang.Lang, d string) string {
	parts := strings.Split(d, "; ")
	var tail []string // in the order they come
	end := len(parts)
	if took, ok := strings.CutPrefix(parts[end-1], "in "); ok && end > 1 {
		tail = append(tail, l.Msgf("in %s", took))
		end--
	}
	if woke, ok := strings.CutPrefix(parts[end-1], "woken by "); ok && end > 1 {
		tail = append([]string{wokenIn(l, woke)}, tail...)
		end--
	}
	head := parts[:end]
	split := len(head)
	for i := 1; i < len(head); i++ {
		if strings.HasPrefix(head[i], "error: ") || strings.HasPrefix(head[i], "requeue") {
			split = i
			break
		}
	}
	out := []string{writesIn(l, strings.Join(head[:split], "; "))}
	if split < len(head) {
		out = append(out, outcomeIn(l, strings.Join(head[split:], "; ")))
	}
	return strings.Join(append(out, tail...), l.Msg("; "))
}

// aWrite starts a write of a pass: its verb and object.
var aWrite = regexp.MustCompile(`(?:^|, )(?:CREATE|UPDATE|STATUS|DELETE|PATCH) [^\s,;/]+/[^\s,;]+`)

// writesIn says the writes of a pass ("CREATE pod/x, UPDATE webapp/y
// (refused: …)") in l.
func writesIn(l lang.Lang, d string) string {
	if d == "no change" {
		return l.Msg("no change")
	}
	starts := aWrite.FindAllStringIndex(d, -1)
	if len(starts) == 0 || starts[0][0] != 0 {
		return d
	}
	var out []string
	for i, s := range starts {
		end := len(d)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		w := strings.TrimPrefix(d[s[0]:end], ", ")
		if what, why, ok := strings.Cut(w, " (refused: "); ok && strings.HasSuffix(why, ")") {
			w = l.Msgf("%s (refused: %s)", what, strings.TrimSuffix(why, ")"))
		}
		out = append(out, w)
	}
	return strings.Join(out, l.Msg(", "))
}

// outcomeIn says how a pass ended (an error, a requeue) in l.
func outcomeIn(l lang.Lang, d string) string {
	if err, ok := strings.CutPrefix(d, "error: "); ok {
		if msg, ok := strings.CutSuffix(err, " (terminal: not retried)"); ok {
			return l.Msgf("error: %s (terminal: not retried)", msg)
		}
		if msg, ok := strings.CutSuffix(err, " (retried with back-off)"); ok {
			return l.Msgf("error: %s (retried with back-off)", msg)
		}
	}
	if d == "requeue (with back-off)" {
		return l.Msg("requeue (with back-off)")
	}
	if after, ok := strings.CutPrefix(d, "requeue after "); ok {
		return l.Msgf("requeue after %s", after)
	}
	return d
}

// wokenIn says what woke a pass (its triggers: "pod/x created, webapp/y
// spec changed, …") in l.
func wokenIn(l lang.Lang, d string) string {
	if d == "a requeue or a related object" {
		return l.Msg("woken by a requeue or a related object")
	}
	triggers := strings.Split(d, ", ")
	for i, t := range triggers {
		triggers[i] = changeIn(l, t)
	}
	return l.Msgf("woken by %s", strings.Join(triggers, l.Msg(", ")))
}

// changeIn says one trigger of a pass ("pod/x spec changed") in l: the
// changes are lab/labtest/control's Trigger.Change.
func changeIn(l lang.Lang, t string) string {
	for _, c := range []struct{ suffix, msg string }{
		{" status or metadata updated", l.Msg("%s status or metadata updated")},
		{" spec changed", l.Msg("%s spec changed")},
		{" being deleted", l.Msg("%s being deleted")},
		{" created", l.Msg("%s created")},
		{" deleted", l.Msg("%s deleted")},
		{" event", l.Msg("%s event")},
	} {
		if obj, ok := strings.CutSuffix(t, c.suffix); ok && obj != "" && !strings.Contains(obj, " ") {
			return strings.Replace(c.msg, "%s", obj, 1)
		}
	}
	return t
}

// webhookIn says a webhook call's line (admissionEvents,
// conversionEvents, ReviewFailed) in l.
func webhookIn(l lang.Lang, d string) string {
	if m := admission.FindStringSubmatch(d); m != nil {
		return admissionIn(l, m)
	}
	if m := conversion.FindStringSubmatch(d); m != nil {
		return conversionIn(l, m)
	}
	if m := conversionOf.FindStringSubmatch(d); m != nil {
		what, _ := formatIn(l, conversionOfN, m[2])
		return m[1] + what + l.Msg(": ") + failureIn(l, m[3])
	}
	return failureIn(l, d)
}

// An admission webhook's line (admissionWhat and what follows it).
var admission = regexp.MustCompile(`^((?:\S+: )?)(validate|default) (\S+) of (\S+), asked by (.*?): (.*)$`)

// admissionIn says an admission webhook's call (admissionEvents,
// ReviewFailed; m is its match of admission) in l: what it was asked, and
// its answer or why there is none; a denial's message as it is.
func admissionIn(l lang.Lang, m []string) string {
	name, op, version, who, answer := m[1], m[3], m[4], m[5], m[6]
	what := l.Msgf("validate %s of %s, asked by %s", op, version, l.Actor(who))
	if m[2] == "default" {
		what = l.Msgf("default %s of %s, asked by %s", op, version, l.Actor(who))
	}
	switch {
	case answer == "allowed":
		answer = l.Msg("allowed")
	case strings.HasPrefix(answer, "allowed, patch "):
		answer = l.Msgf("allowed, patch %s", strings.TrimPrefix(answer, "allowed, patch "))
	case strings.HasPrefix(answer, "denied: "):
		answer = l.Msgf("denied: %s", strings.TrimPrefix(answer, "denied: "))
	default:
		answer = failureIn(l, answer)
	}
	return name + what + l.Msg(": ") + answer
}

// A conversion webhook's line (conversionEvents), and the line of a
// conversion call that got no answer (ReviewFailed).
var (
	conversion   = regexp.MustCompile(`^((?:\S+: )?)(\S+) → (\S+), asked by kube-apiserver(?:: (.*))?$`)
	conversionOf = regexp.MustCompile(`^((?:\S+: )?)(\S+ → \S+ \(\d+ objects\)): (.*)$`)
)

// conversionIn says a conversion webhook's call (m is its match of
// conversion) in l: the versions, and a failure's account.
func conversionIn(l lang.Lang, m []string) string {
	out := m[1] + l.Msgf(conversionAskedByAPI, m[2], m[3])
	if m[4] != "" {
		out += l.Msg(": ") + failureIn(l, m[4])
	}
	return out
}

// failureIn says the account of a webhook call that gave no usable answer
// (webhookFailures) in l; another as it is.
func failureIn(l lang.Lang, why string) string {
	for _, f := range webhookFailures {
		if s, ok := formatIn(l, f, why); ok {
			return s
		}
	}
	return why
}

// frontQuoted is the lab's webhook front's answer (FrontSays and an
// account) as the apiserver quotes it (%q) in an error.
var frontQuoted = regexp.MustCompile(`"` + regexp.QuoteMeta(FrontSays) + `(?:[^"\\]|\\.)*"`)

// WebhookErrorIn says an error of the apiserver (msg) in l where it
// carries the lab's webhook front's account of a call to the user's
// webhook that got no answer: a write refused because the user's webhook
// server cannot be reached says "failed calling webhook "…": failed to
// call webhook: an error on the server ("crdlab: nothing serves on …")
// has prevented the request from succeeding" (a conversion: "conversion
// webhook for … failed: …"). The account is said in l's words, as
// DetailIn says it on the timeline; the rest is what Kubernetes said, as
// it is. In English, msg as it is.
func WebhookErrorIn(l lang.Lang, msg string) string {
	if l != lang.ZH && l != lang.Pseudo {
		return msg
	}
	return frontQuoted.ReplaceAllStringFunc(msg, func(q string) string {
		body, err := strconv.Unquote(q)
		if err != nil {
			return q
		}
		why := strings.TrimPrefix(body, FrontSays)
		said := failureIn(l, why)
		if said == why {
			return q
		}
		return strconv.Quote(FrontSays + said)
	})
}

// formatREs holds, for each format of a webhook call's account and of a
// conversion call's line, the regular expression that matches what it
// wrote (formatRE).
var formatREs = func() map[string]*regexp.Regexp {
	out := map[string]*regexp.Regexp{}
	for _, f := range append([]string{conversionOfN}, webhookFailures...) {
		out[f] = formatRE(f)
	}
	return out
}()

// verb is a verb of a format (%s, %d, %q, %v).
var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)

// formatIn says s in l if format (one of formatREs) wrote it: format's
// words in l, with the values formatted into s (an empty body's words in l
// too).
func formatIn(l lang.Lang, format, s string) (string, bool) {
	m := formatREs[format].FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	verbs := verb.FindAllString(format, -1)
	args := make([]any, len(verbs))
	for i, v := range verbs {
		a := m[i+1]
		args[i] = a
		switch v[len(v)-1] {
		case 'd':
			if n, err := strconv.Atoi(a); err == nil {
				args[i] = n
			}
		case 'q':
			if u, err := strconv.Unquote(a); err == nil {
				args[i] = u
			}
		default:
			if a == emptyBody {
				args[i] = l.Msg(emptyBody)
			}
		}
	}
	return l.Msgf(format, args...), true
}

// formatRE returns the regular expression that matches what format wrote,
// its values as groups.
func formatRE(format string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, at := range verb.FindAllStringIndex(format, -1) {
		b.WriteString(regexp.QuoteMeta(format[last:at[0]]))
		switch format[at[1]-1] {
		case 'd':
			b.WriteString(`(-?\d+)`)
		case 'q':
			b.WriteString(`("(?:[^"\\]|\\.)*")`)
		default:
			b.WriteString(`(.*?)`)
		}
		last = at[1]
	}
	b.WriteString(regexp.QuoteMeta(format[last:]) + "$")
	return regexp.MustCompile(b.String())
}
