package control

import (
	"net/url"
	"strings"
)

// Route is a request of the control socket, written as a pattern of
// net/http's ServeMux: "METHOD /path", where {name} is the name of a
// component or node.
type Route string

// The routes of the control socket. Answers are JSON; an answer other than
// 200 OK carries an Error.
const (
	// RouteComponents answers the lab's components, []Component.
	RouteComponents Route = "GET /components"
	// RouteStopComponent stops a component.
	RouteStopComponent Route = "POST /components/{name}/stop"
	// RouteStartComponent starts a stopped component.
	RouteStartComponent Route = "POST /components/{name}/start"
	// RouteNodes answers the lab's simulated nodes, []Node.
	RouteNodes Route = "GET /nodes"
	// RouteStopNode stops a simulated node.
	RouteStopNode Route = "POST /nodes/{name}/stop"
	// RouteStartNode starts a stopped simulated node.
	RouteStartNode Route = "POST /nodes/{name}/start"
	// RouteReset resets the lab; the body is ResetOptions (or empty).
	RouteReset Route = "POST /reset"
	// RouteEvents streams the events only the lab's process sees, one JSON
	// object per line (crdlab's timeline.Event), until the client goes.
	RouteEvents Route = "GET /events"
	// RouteTimeline streams the lab's timeline, one JSON object per line
	// (crdlab's timeline.Event), until the client goes: every change in the
	// cluster and the events only the lab's process sees, in the cluster's
	// order (etcd revision; a line without one by its time), each write
	// with its revision and the apiserver's time. The answer's header is
	// sent once the lab's watches have synced; TimelineHoldHeader says how
	// long the lab holds each line for the lines before it.
	RouteTimeline Route = "GET /timeline"
	// RouteReports takes report entries, one JSON object per line (crdlab's
	// scenarios.Entry), for as long as the request lasts.
	RouteReports Route = "POST /reports"
	// RoutePasses takes reconcile passes of controllers outside the lab's
	// process, one JSON object per line (Pass), and puts them on the lab's
	// timeline: at most 8 MiB a request, names of at most 253 characters,
	// 100 triggers and 1,000 writes a pass (a pass beyond ends the request
	// with 400, the passes before it taken); control characters are
	// stripped, long errors cut, and a pass's end put within the hour
	// before the lab's now.
	RoutePasses Route = "POST /passes"
)

// TimelineHoldHeader is the header of RouteTimeline's answer that says how
// long the lab holds each line of its timeline for the lines before it (a
// Go duration: "500ms"), the one value of it: a line reaches the client at
// most that long after the lab saw its change (unless it is marked late),
// and a client waits for a line no longer than that.
const TimelineHoldHeader = "Crdlab-Timeline-Hold"

// Routes returns every route of the control socket: the lab's server
// serves exactly these, and the Client calls nothing else.
func Routes() []Route {
	return []Route{
		RouteComponents, RouteStopComponent, RouteStartComponent,
		RouteNodes, RouteStopNode, RouteStartNode,
		RouteReset, RouteEvents, RouteTimeline, RouteReports, RoutePasses,
	}
}

// Method is the route's HTTP method.
func (r Route) Method() string {
	method, _, _ := strings.Cut(string(r), " ")
	return method
}

// Path is the route's path for the component or node name (unused by a
// route without {name}).
func (r Route) Path(name string) string {
	_, path, _ := strings.Cut(string(r), " ")
	return strings.Replace(path, "{name}", url.PathEscape(name), 1)
}
