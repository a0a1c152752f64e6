package ironic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/baremetal/v1/nodes"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"golang.org/x/sync/singleflight"

	"github.com/baremetal-tf/terraform-provider-baremetal/internal/lifecycle"
)

// Polling delays (BMO IR shortRetryDelay).
const (
	// DefaultFastPoll is the delay for manage, provide, abort, adopt and
	// power changes, and for a busy (409) node.
	DefaultFastPoll = 3 * time.Second
	// DefaultSlowPoll is the delay for inspect, clean, deploy and undeploy,
	// and for a node with a fault.
	DefaultSlowPoll = 10 * time.Second
	// softPowerOffTimeout is the timeout of a soft power off (BMO).
	softPowerOffTimeout = 180 * time.Second
	// DefaultStallTimeout is how long a node may sit in a state where a
	// conductor works synchronously, with no conductor holding its lock
	// and nothing changing, before the provisioner calls it stalled.
	DefaultStallTimeout = 3 * time.Minute
)

// Provisioner implements lifecycle.Provisioner over Ironic, as BMO's
// pkg/provisioner/ironic does. Everything it needs about a host is in the
// Host and in Ironic, except manageTried and credsWritten; it is safe for concurrent use, and
// one serves the whole provider.
type Provisioner struct {
	sc *gophercloud.ServiceClient
	// manageTried maps a node UUID to the BMC credentials version its last
	// manage request (enroll -> manageable) was made with, so that a
	// failure with those very credentials is reported instead of retried.
	// It lives as long as the Provisioner (the provider process): a later
	// run tries once again.
	manageTried sync.Map
	// credsWritten maps a node UUID to the BMC credentials version this
	// process last wrote to it (create or update): the registration
	// passes until the node is manageable do not send the same
	// driver_info again.
	credsWritten sync.Map
	// powerSent maps a node UUID to the last power request Ironic
	// accepted for it (a powerRequest): see changePower.
	powerSent sync.Map
	// rebootSent maps a node UUID to the reboot Ironic accepted for it (a
	// rebootRequest): see Reboot.
	rebootSent sync.Map
	// driverInspect caches each driver's enabled inspect interfaces
	// (driver name -> []string).
	driverInspect sync.Map
	// steps maps a node UUID to the step it was last read running
	// (steps.go).
	steps sync.Map
	// driverLookups shares concurrent first reads of a driver.
	driverLookups singleflight.Group
	// selfParenting is set once Ironic made a PATCHed node its own
	// parent (see unparent).
	selfParenting atomic.Bool
	w             *Watcher
	// serverMax is the server's maximum microversion, for errors.
	serverMax string
	fastPoll  time.Duration
	slowPoll  time.Duration
	jitter    float64
	rand      func() float64
	// stallTimeout (0: never) and now: see checkStall.
	stallTimeout time.Duration
	now          func() time.Time
	// noDetails: Inspect returns no hardware details (WithoutInspectionDetails).
	noDetails bool
	// deployImages: the provider's per-architecture deploy images (WithDeployImages).
	deployImages lifecycle.DefaultDeployImages
}

var _ lifecycle.Provisioner = (*Provisioner)(nil)

// Option tunes a Provisioner.
type Option func(*Provisioner)

// WithServerMaxMicroversion tells the Ironic server's maximum
// microversion, named by the errors of features it lacks.
func WithServerMaxMicroversion(v string) Option {
	return func(p *Provisioner) { p.serverMax = v }
}

// WithPollIntervals overrides the 3 s / 10 s requeue delays.
func WithPollIntervals(fast, slow time.Duration) Option {
	return func(p *Provisioner) { p.fastPoll, p.slowPoll = fast, slow }
}

// WithJitter sets the jitter added to requeue delays as a fraction (BMO:
// 0.25, the default; 0 disables it). rnd returns a float in [0,1); nil uses
// math/rand.
func WithJitter(fraction float64, rnd func() float64) Option {
	return func(p *Provisioner) {
		p.jitter = fraction
		if rnd != nil {
			p.rand = rnd
		}
	}
}

// WithoutInspectionDetails makes Inspect finish without reading the
// inspected hardware (GET /v1/nodes/{id}/inventory, else the node's
// properties and ports): for a caller that keeps no HardwareDetails. The
// provider is one: the baremetal_hardware data source reads the inventory
// when a configuration asks for it, and an apply of N hosts saves N
// requests.
func WithoutInspectionDetails() Option {
	return func(p *Provisioner) { p.noDetails = true }
}

// WithStallTimeout sets the stall limit (DefaultStallTimeout; 0 turns stall
// detection off) and the clock it is measured with (nil: time.Now).
func WithStallTimeout(d time.Duration, now func() time.Time) Option {
	return func(p *Provisioner) {
		p.stallTimeout = d
		if now != nil {
			p.now = now
		}
	}
}

// NewProvisioner returns a Provisioner using sc (whose Microversion should
// be negotiated, 1.82 on Ironic 21.4) and w, the provider's shared watcher
// (nil: no nudging). sc should come from clients.Connect: its transport
// retries busy nodes and clears the pass memo on every write.
func NewProvisioner(sc *gophercloud.ServiceClient, w *Watcher, opts ...Option) *Provisioner {
	p := &Provisioner{
		sc:       sc,
		w:        w,
		fastPoll: DefaultFastPoll,
		slowPoll: DefaultSlowPoll,
		jitter:   0.25,
		rand:     rand.Float64,

		stallTimeout: DefaultStallTimeout,
		now:          time.Now,
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// ---------------------------------------------------------------------------
// Results

func (p *Provisioner) delay(d time.Duration) time.Duration {
	if p.jitter <= 0 || d <= 0 {
		return d
	}
	return d + time.Duration(float64(d)*p.jitter*p.rand())
}

func (p *Provisioner) continuing(verb, ps string, d time.Duration) lifecycle.Result {
	return lifecycle.Result{Dirty: true, RequeueAfter: p.delay(d), Verb: verb, ProvisionState: ps}
}

func failed(verb, ps, msg string) lifecycle.Result {
	if msg == "" {
		msg = fmt.Sprintf("Ironic node in state %q failed without last_error", ps)
	}
	return lifecycle.Result{ErrorMessage: msg, Verb: verb, ProvisionState: ps}
}

func done(verb, ps string) lifecycle.Result {
	return lifecycle.Result{Verb: verb, ProvisionState: ps}
}

// pollFor is the requeue delay after issuing or while awaiting verb.
func (p *Provisioner) pollFor(verb string) time.Duration {
	switch verb {
	case "inspect", "clean", "active", "deleted", "rebuild", "service":
		return p.slowPoll
	}
	return p.fastPoll
}

// ---------------------------------------------------------------------------
// Logging: never driver_info, never credentials.

func logFields(h *lifecycle.Host, node *nodes.Node, verb string) map[string]any {
	f := map[string]any{"host": h.Spec.Name}
	if node != nil {
		f["node"] = node.UUID
		f["provision_state"] = node.ProvisionState
		if node.TargetProvisionState != "" {
			f["target_provision_state"] = node.TargetProvisionState
		}
	} else if h.Status.ID != "" {
		f["node"] = h.Status.ID
	}
	if verb != "" {
		f["verb"] = verb
	}
	return f
}

func logDebug(ctx context.Context, msg string, h *lifecycle.Host, node *nodes.Node, verb string) {
	tflog.Debug(ctx, msg, logFields(h, node, verb))
}

func logInfo(ctx context.Context, msg string, h *lifecycle.Host, node *nodes.Node, verb string) {
	tflog.Info(ctx, msg, logFields(h, node, verb))
}

// ---------------------------------------------------------------------------
// Errors

func isNotFound(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusNotFound) }
func isConflict(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusConflict) }
func isBadRequest(err error) bool {
	return gophercloud.ResponseCodeIs(err, http.StatusBadRequest)
}

// notRegistered wraps lifecycle.ErrNotRegistered for the host.
func notRegistered(h *lifecycle.Host) error {
	id := h.Status.ID
	if id == "" {
		id = h.Spec.Name
	}
	return fmt.Errorf("node %q: %w", id, lifecycle.ErrNotRegistered)
}

// ironicError strips gophercloud's wrapping to Ironic's faultstring when
// it can, to keep messages short.
func ironicError(err error) string {
	var ue gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &ue) && len(ue.Body) > 0 {
		var outer struct {
			ErrorMessage string `json:"error_message"`
		}
		var inner struct {
			Faultstring string `json:"faultstring"`
		}
		if json.Unmarshal(ue.Body, &outer) == nil && outer.ErrorMessage != "" {
			if json.Unmarshal([]byte(outer.ErrorMessage), &inner) == nil && inner.Faultstring != "" {
				return fmt.Sprintf("HTTP %d: %s", ue.Actual, inner.Faultstring)
			}
			return fmt.Sprintf("HTTP %d: %s", ue.Actual, outer.ErrorMessage)
		}
		return fmt.Sprintf("HTTP %d: %s", ue.Actual, strings.TrimSpace(string(ue.Body)))
	}
	return err.Error()
}

// ---------------------------------------------------------------------------
// Node access

// Freshness of the reads served from the watcher's lists: a read within a
// reconcile pass takes a list up to passReadMaxAge old (the watcher ticks
// at least every DefaultMaxTick while hosts wait), one outside a pass
// (Terraform's Read, the refresh before an update or delete) up to
// readMaxAge old. Either way the list must have started after this
// provider's last write to the node, and after the provider process
// started. A refresh of 100 hosts on a loaded machine spreads its reads
// over tens of seconds (Terraform's own pace): at 2 s it cost 13 lists.
const (
	passReadMaxAge = DefaultMaxTick + time.Second
	readMaxAge     = 10 * time.Second
)

// getNode reads a node by id or name; a missing node is ErrNotRegistered.
// With a watcher the node comes from its shared list (see Watcher.Node),
// else from GET /v1/nodes/{ident}.
func (p *Provisioner) getNode(ctx context.Context, h *lifecycle.Host, ident string) (*nodes.Node, error) {
	if ident == "" {
		return nil, notRegistered(h)
	}
	memo := lifecycle.Memo(ctx)
	if v, ok := memo.Get("node:" + ident); ok {
		if memoized, ok := v.(*nodes.Node); ok {
			cp := *memoized
			return &cp, nil
		}
	}
	var n *nodes.Node
	var err error
	if p.w != nil {
		maxAge := readMaxAge
		if memo != nil {
			maxAge = passReadMaxAge
		}
		n, err = p.w.Node(ctx, ident, time.Now().Add(-maxAge))
		if err == nil && n == nil {
			return nil, notRegistered(h)
		}
		if err != nil {
			err = fmt.Errorf("list nodes (reading node %s): %w", ident, err)
		}
	} else {
		n, err = nodes.Get(ctx, p.sc, ident).Extract()
		if isNotFound(err) {
			return nil, notRegistered(h)
		}
		if err != nil {
			err = fmt.Errorf("get node %s: %w", ident, err)
		}
	}
	if err != nil {
		return nil, err
	}
	// Register and the state's action read the node in one pass: the
	// second read reuses the first, until anything is written.
	memo.Set("node:"+n.UUID, n)
	if n.Name != "" {
		memo.Set("node:"+n.Name, n)
	}
	cp := *n
	return &cp, nil
}

// wrote tells the watcher which nodes (uuids or names) this provider
// changed, so that reads of them wait for a newer list: call it after every
// write to a node, whether it succeeded or not. (The transport clears the
// pass memo on writes.)
func (p *Provisioner) wrote(_ context.Context, idents ...string) {
	if p.w != nil {
		p.w.Wrote(idents...)
	}
}

// lookup finds the host's node by Status.ID, then Spec.Name. (nil, nil)
// when neither exists.
func (p *Provisioner) lookup(ctx context.Context, h *lifecycle.Host) (*nodes.Node, error) {
	for _, ident := range []string{h.Status.ID, h.Spec.Name} {
		if ident == "" {
			continue
		}
		n, err := p.getNode(ctx, h, ident)
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, lifecycle.ErrNotRegistered) {
			return nil, err
		}
	}
	return nil, nil
}

// current returns the host's node, or an error wrapping ErrNotRegistered.
// changing is current for a method that changes the node: a detached node
// is refused before anything is written (refuseDetached).
func (p *Provisioner) changing(ctx context.Context, h *lifecycle.Host, verb string) (*nodes.Node, error) {
	n, err := p.current(ctx, h)
	if err != nil {
		return nil, err
	}
	if err := refuseDetached(n, verb+" it"); err != nil {
		return nil, err
	}
	return n, nil
}

func (p *Provisioner) current(ctx context.Context, h *lifecycle.Host) (*nodes.Node, error) {
	n, err := p.lookup(ctx, h)
	if err != nil {
		return nil, err
	}
	if n == nil {
		return nil, notRegistered(h)
	}
	if p.w != nil {
		p.w.Saw(n)
	}
	p.sawStep(n)
	if err := p.checkStall(ctx, h, n); err != nil {
		return nil, err
	}
	return n, nil
}

// syncStates are the provision states in which an Ironic conductor works on
// the node synchronously, holding the node's lock (its reservation) from
// start to end. The "* wait" states wait for an agent or a BMC without a
// lock and are never stalls.
var syncStates = map[string]bool{
	psVerifying: true, psInspecting: true, psCleaning: true, psDeploying: true, psDeleting: true,
	psAdopting: true, psRescuing: true, psUnrescuing: true, psServicing: true,
}

// checkStall returns a *lifecycle.StallError when the node is in a
// synchronous state with no reservation and its provision_updated_at is
// older than the stall limit: the conductor's task was lost (seen on
// Ironic 21.4 with sqlite: "database is locked" inside do_node_verify), or
// the conductor died and another took the node over without failing it
// (Ironic fails only deploying and cleaning on takeover). Nothing in Ironic
// moves such a node until a conductor restarts.
func (p *Provisioner) checkStall(ctx context.Context, h *lifecycle.Host, n *nodes.Node) error {
	if p.stallTimeout <= 0 || !syncStates[n.ProvisionState] || n.Reservation != "" || n.ProvisionUpdatedAt.IsZero() {
		return nil
	}
	idle := p.now().Sub(n.ProvisionUpdatedAt)
	if idle <= p.stallTimeout {
		return nil
	}
	f := logFields(h, n, "")
	f["idle"] = idle.Round(time.Second).String()
	f["stall_timeout"] = p.stallTimeout.String()
	tflog.Warn(ctx, "node stalled: no conductor holds it and nothing changed", f)
	return &lifecycle.StallError{ProvisionState: n.ProvisionState, Idle: idle, Limit: p.stallTimeout}
}

// interrupted reports that a node's failed state came from a conductor that
// restarted or died in the middle of the node's task, not from the host:
// the verb deserves another try without counting it as the host's failure.
//
// An operation aborted by request is no host failure either: the
// provider aborts the wait of a host it detaches (abort.go), and the host
// goes through the operation again once re-attached.
//
// A task that died on the conductor's own database connection (Ironic's
// "Unexpected exception of type InterfaceError: (pymysql.err.InterfaceError)
// (0, ...)", seen on a loaded 2023.1 rig during inspection) is Ironic's
// failure, not the host's, and is retried the same way.
func interrupted(n *nodes.Node) bool {
	lower := strings.ToLower(n.LastError)
	return strings.Contains(n.LastError, "can't be resumed by conductor") ||
		strings.Contains(n.LastError, "aborted due to conductor take over") ||
		(strings.Contains(lower, "aborted") && strings.Contains(lower, "by request")) ||
		lostDatabase(n.LastError)
}

// lostDatabase reports a last_error of a conductor task that failed on
// Ironic's database connection (pymysql's InterfaceError or
// OperationalError, oslo.db's DBConnectionError), wrapped by Ironic as an
// unexpected exception.
func lostDatabase(lastError string) bool {
	if !strings.HasPrefix(lastError, "Unexpected exception of type ") {
		return false
	}
	for _, s := range []string{"pymysql.err.InterfaceError", "pymysql.err.OperationalError", "DBConnectionError"} {
		if strings.Contains(lastError, s) {
			return true
		}
	}
	return false
}

func (p *Provisioner) nudge() {
	if p.w != nil {
		p.w.Nudge()
	}
}

// refuseDetached is the provisioner's guard under lifecycle's detached
// rule (lifecycle.CheckAttached): a node in maintenance with the detach
// reason takes no provision-state or maintenance change here; only Attach
// ends that maintenance. A path that forgot the rule fails, naming the
// node, instead of touching the machine.
func refuseDetached(node *nodes.Node, action string) error {
	if node.Maintenance && node.MaintenanceReason == lifecycle.DetachReason {
		return &lifecycle.DetachedError{Host: node.Name, ID: node.UUID, Action: fmt.Sprintf("%s (Ironic provision state %q)", action, node.ProvisionState)}
	}
	return nil
}

// setMaintenance sets or clears the maintenance flag, never on a detached
// node (see refuseDetached; Attach uses writeMaintenance).
func (p *Provisioner) setMaintenance(ctx context.Context, h *lifecycle.Host, node *nodes.Node, on bool, reason string) (lifecycle.Result, error) {
	verb := "maintenance off"
	if on {
		verb = "maintenance on"
	}
	if err := refuseDetached(node, "set "+verb); err != nil {
		return lifecycle.Result{Verb: verb, ProvisionState: node.ProvisionState}, err
	}
	return p.writeMaintenance(ctx, h, node, on, reason)
}

// writeMaintenance sets or clears the maintenance flag.
func (p *Provisioner) writeMaintenance(ctx context.Context, h *lifecycle.Host, node *nodes.Node, on bool, reason string) (lifecycle.Result, error) {
	verb := "maintenance off"
	var err error
	if on {
		verb = "maintenance on"
		err = nodes.SetMaintenance(ctx, p.sc, node.UUID, nodes.MaintenanceOpts{Reason: reason}).ExtractErr()
		p.wrote(ctx, node.UUID)
	} else {
		err = nodes.UnsetMaintenance(ctx, p.sc, node.UUID).ExtractErr()
		p.wrote(ctx, node.UUID)
	}
	switch {
	case err == nil:
		logInfo(ctx, "changed maintenance", h, node, verb)
		return p.continuing(verb, node.ProvisionState, 0), nil
	case isConflict(err):
		return p.continuing(verb, node.ProvisionState, p.fastPoll), nil
	default:
		return lifecycle.Result{Verb: verb, ProvisionState: node.ProvisionState},
			fmt.Errorf("set maintenance=%v on node %s: %w", on, node.UUID, err)
	}
}

// changeState issues a provision-state verb (BMO tryChangeNodeProvisionState):
// a detached node is refused (refuseDetached), a node with a fault waits
// 10 s, any other maintenance is cleared first, 409 means busy (retry in
// 3 s). started reports that Ironic accepted the verb.
func (p *Provisioner) changeState(ctx context.Context, h *lifecycle.Host, node *nodes.Node, opts nodes.ProvisionStateOpts) (res lifecycle.Result, started bool, err error) {
	verb := string(opts.Target)
	ps := node.ProvisionState
	if err := refuseDetached(node, "request provision state "+verb); err != nil {
		return lifecycle.Result{Verb: verb, ProvisionState: ps}, false, err
	}
	if node.Fault != "" {
		logInfo(ctx, "node has a fault, waiting", h, node, verb)
		return p.continuing(verb, ps, p.slowPoll), false, nil
	}
	if node.Maintenance {
		logInfo(ctx, "clearing maintenance before a provision state change", h, node, verb)
		err := nodes.UnsetMaintenance(ctx, p.sc, node.UUID).ExtractErr()
		p.wrote(ctx, node.UUID)
		if isConflict(err) {
			return p.continuing(verb, ps, p.fastPoll), false, nil
		}
		if err != nil {
			return lifecycle.Result{Verb: verb, ProvisionState: ps}, false,
				fmt.Errorf("clear maintenance on node %s: %w", node.UUID, err)
		}
	}
	if err := p.unparentBefore(ctx, node); err != nil {
		return lifecycle.Result{Verb: verb, ProvisionState: ps}, false, err
	}
	logInfo(ctx, "changing provision state", h, node, verb)
	sc := p.sc
	if opts.Runbook != "" && opts.Target == nodes.TargetService {
		if rsc := p.serviceRunbookClient(); rsc != nil {
			sc = rsc
		}
	}
	err = nodes.ChangeProvisionState(ctx, sc, node.UUID, opts).ExtractErr()
	p.wrote(ctx, node.UUID)
	switch {
	case err == nil:
		p.nudge()
		return p.continuing(verb, ps, p.pollFor(verb)), true, nil
	case isConflict(err):
		logDebug(ctx, "node busy, will retry", h, node, verb)
		return p.continuing(verb, ps, p.fastPoll), false, nil
	default:
		return lifecycle.Result{Verb: verb, ProvisionState: ps}, false,
			fmt.Errorf("%s node %s (provision state %q): %s", verb, node.UUID, ps, ironicError(err))
	}
}

// update PATCHes the node. ok is false when the caller must return res/err
// (409 busy, or an error).
func (p *Provisioner) update(ctx context.Context, h *lifecycle.Host, node *nodes.Node, verb string, patch nodes.UpdateOpts) (updated *nodes.Node, res lifecycle.Result, ok bool, err error) {
	if len(patch) == 0 {
		return node, lifecycle.Result{}, true, nil
	}
	paths := make([]string, 0, len(patch))
	for _, op := range patch {
		if u, isOp := op.(nodes.UpdateOperation); isOp {
			paths = append(paths, u.Path)
		}
	}
	f := logFields(h, node, verb)
	f["paths"] = strings.Join(paths, ",")
	tflog.Debug(ctx, "updating node", f)
	if (p.selfParenting.Load() || p.parentBlind()) && !ownPowerSupply(node) {
		patch = append(patch, ownPowerSupplyOp)
	}
	n, err := nodes.Update(ctx, p.sc, node.UUID, patch).Extract()
	p.wrote(ctx, node.UUID)
	if err == nil && n.ParentNode == n.UUID && !ownPowerSupply(n) {
		n, err = p.unparent(ctx, n)
	}
	switch {
	case err == nil:
		return n, lifecycle.Result{}, true, nil
	case isConflict(err):
		return nil, p.continuing(verb, node.ProvisionState, p.fastPoll), false, nil
	default:
		return nil, lifecycle.Result{Verb: verb, ProvisionState: node.ProvisionState}, false,
			fmt.Errorf("update node %s (%s): %s", node.UUID, strings.Join(paths, ","), ironicError(err))
	}
}

// ownPowerSupplyOp marks a node as powered on its own
// (driver_info/has_dedicated_power_supply): see unparent.
var ownPowerSupplyOp = nodes.UpdateOperation{Op: nodes.AddOp, Path: "/driver_info/has_dedicated_power_supply", Value: true}

func ownPowerSupply(n *nodes.Node) bool {
	v, _ := n.DriverInfo["has_dedicated_power_supply"].(bool)
	return v
}

// unparent makes a node that Ironic made its own child harmless. Ironic
// 29.0.5 (Debian 13's 2025.1) sets parent_node to the node itself on every
// PATCH that does not name one (fixed in later releases), and a PATCH
// cannot clear it (each sets it again). A self-parented node then fails
// every power off ("child_node ... is presently locked": the conductor
// locks the node's children, itself) and power on through a parent. A
// node with has_dedicated_power_supply is left out of both, so this PATCH
// sets it, and from then on every PATCH of this provider carries it for
// nodes that lack it (one request, not two). A microversion pinned below
// 1.83 on a server that has parent_node cannot see it: every PATCH then
// carries the mark (parentBlind).
func (p *Provisioner) unparent(ctx context.Context, n *nodes.Node) (*nodes.Node, error) {
	if !p.selfParenting.Swap(true) {
		tflog.Warn(ctx, "Ironic set parent_node to the node itself on a PATCH (a bug of Ironic 29.0.5, 2025.1): "+
			"this provider sets driver_info/has_dedicated_power_supply on the nodes it updates, so that their power "+
			"actions do not wait on themselves. It cannot undo the rest: that Ironic's conductor leaves such nodes out of "+
			"its periodic tasks (power sync, the clean, deploy and inspect wait timeouts, failing the nodes of a conductor "+
			"that died), so a host whose agent stops answering waits until this provider's timeout. Upgrade Ironic, or "+
			"apply the upstream fix (PATCH sets parent_node only when it names another node)", map[string]any{"node": n.UUID})
	}
	fixed, err := nodes.Update(ctx, p.sc, n.UUID, nodes.UpdateOpts{ownPowerSupplyOp}).Extract()
	p.wrote(ctx, n.UUID)
	if err != nil {
		return nil, fmt.Errorf("node %s: Ironic made it its own parent_node; setting driver_info/has_dedicated_power_supply "+
			"so that its power actions do not lock on themselves: %s", n.UUID, ironicError(err))
	}
	return fixed, nil
}

// parentBlind is true when the server has parent_node (1.83+) but the
// microversion in use (pinned lower) does not show it: a self-parented
// node cannot be seen, so every PATCH marks the node (see unparent).
func (p *Provisioner) parentBlind() bool {
	api := p.api()
	return lifecycle.FeatureParentNode.In(api.ServerMax) && !lifecycle.FeatureParentNode.In(api.Microversion)
}

// unparentBefore unparents node before a power or provision state change
// when Ironic made it its own parent (another client's PATCH, or one of
// this provider's made before it knew): the change would fail on it.
func (p *Provisioner) unparentBefore(ctx context.Context, node *nodes.Node) error {
	if node.ParentNode != node.UUID || ownPowerSupply(node) {
		return nil
	}
	fixed, err := p.unparent(ctx, node)
	if err == nil {
		node.DriverInfo = fixed.DriverInfo
	}
	return err
}

// has tells whether sc's microversion offers f.
func has(sc *gophercloud.ServiceClient, f lifecycle.Feature) bool { return f.In(sc.Microversion) }

// withChildren is the query parameter that lists child nodes too, from
// the microversion that has them (FeatureParentNode): Ironic's node lists
// leave them out by default, and a child node is a host like another
// (Ironic 29.0.5 also sets parent_node on every PATCHed node, which hides
// it). "" below, or "&" or "?" joined to query.
func withChildren(sc *gophercloud.ServiceClient, query string) string {
	if !has(sc, lifecycle.FeatureParentNode) {
		return ""
	}
	if strings.Contains(query, "?") {
		return "&include_children=True"
	}
	return "?include_children=True"
}

// childrenListOpts is a node list's options with withChildren.
type childrenListOpts struct {
	nodes.ListOpts
	sc *gophercloud.ServiceClient
}

func (o childrenListOpts) ToNodeListDetailQuery() (string, error) {
	q, err := o.ListOpts.ToNodeListDetailQuery()
	return q + withChildren(o.sc, q), err
}

// api is what the Ironic in use offers: the negotiated microversion and
// the server's maximum (WithServerMaxMicroversion; else the negotiated).
func (p *Provisioner) api() lifecycle.APIFeatures {
	max := p.serverMax
	if max == "" {
		max = p.sc.Microversion
	}
	return lifecycle.APIFeatures{Microversion: p.sc.Microversion, ServerMax: max}
}

// ---------------------------------------------------------------------------
// Observe

// Observe reads the node behind h (Status.ID, else Spec.Name).
func (p *Provisioner) Observe(ctx context.Context, h *lifecycle.Host) (lifecycle.Observation, error) {
	n, err := p.lookup(ctx, h)
	if err != nil {
		return lifecycle.Observation{}, err
	}
	if n == nil {
		return lifecycle.Observation{Exists: false}, nil
	}
	// The catalog's view of the node, with the state mapped from the
	// host's previous state rather than from none.
	obs := observationOfNode(n)
	p.sawStep(n)
	obs.State = MapState(n.ProvisionState, h.Status.State)
	// What the host actions need besides (provisioner_hostops.go).
	obs.DisablePowerOff, obs.OnlineSetting = n.DisablePowerOff, onlineSettingOf(n)
	return obs, nil
}

// labelsOf reads extra.labels.
func labelsOf(n *nodes.Node) map[string]string {
	raw, ok := n.Extra["labels"].(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}
