package lifecycle

// AddressChangeInPlace reports whether a host's BMC address may change
// without replacing the host, as BMO's webhook allows: while the host has
// not finished registering (no state yet, unmanaged, registering) or its
// registration failed (a wrong address is what registration errors are
// usually about). The node keeps its id; the next registration pushes the
// driver, interfaces and driver_info the new address implies. Any other
// host is another machine behind another BMC: replace it.
func AddressChangeInPlace(state State, errorType ErrorType) bool {
	switch state {
	case StateNone, StateUnmanaged, StateRegistering:
		return true
	}
	return errorType == RegistrationError
}
