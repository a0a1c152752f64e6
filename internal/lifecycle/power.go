package lifecycle

// DeployedOnline is the power a deployed host converges to (BMO's online
// on a provisioned host): while it is being deployed, on (the deployment
// needs it); once provisioned, what the host's configuration says when it
// says anything (configured non-nil), else on, as the deployment left it.
func DeployedOnline(s State, configured *bool) bool {
	if s == StateProvisioned && configured != nil {
		return *configured
	}
	return true
}

// OnlineFollowsPower reports whether a host's online setting is read back
// from the observed power state: on a provisioned host, where online
// powers the running machine off and on in place (and a change behind
// Terraform's back shows as drift). Elsewhere online is what was asked.
func OnlineFollowsPower(s State) bool { return s == StateProvisioned }
