package bmc

import (
	"strconv"
	"strings"

	"github.com/stmcginnis/gofish/schemas"
)

// This file is what a BMC's answer means: the messages of an error body
// (@Message.ExtendedInfo, else its code and message) with their text
// resolved from the BMC's message registries, else from the standard Base
// registry, and their arguments.

// RedfishMessage is one message a BMC answered with.
type RedfishMessage struct {
	// ID is the MessageId, e.g. "iLO.2.14.InvalidOperationForSystemState".
	ID string
	// Message is its text: the BMC's, else its message registry's, else
	// the standard Base registry's, with the arguments put in; "" when
	// none of them has it.
	Message string
	// Args are the MessageArgs.
	Args []string
}

func (m RedfishMessage) String() string {
	s := m.ID
	switch {
	case s == "":
		s = m.Message
	case m.Message != "":
		s += ": " + m.Message
	}
	var rest []string
	for _, a := range m.Args {
		if !strings.Contains(m.Message, a) {
			rest = append(rest, strconv.Quote(a))
		}
	}
	if len(rest) > 0 {
		s += " (arguments: " + strings.Join(rest, ", ") + ")"
	}
	return s
}

// genericMessage says nothing but "look at ExtendedInfo".
func genericMessage(msg string) bool {
	l := strings.ToLower(msg)
	return l == "" || strings.Contains(l, "extendedinfo") || strings.HasPrefix(l, "a general error has occurred")
}

// messagesOf are the messages of an error body, resolved.
func (c *RedfishClient) messagesOf(rf *schemas.Error, askBMC bool) []RedfishMessage {
	var out []RedfishMessage
	for _, info := range rf.ExtendedInfos {
		if info.MessageID == "" && info.Message == "" {
			continue
		}
		out = append(out, c.resolve(info.MessageID, info.Message, info.MessageArgs, askBMC))
	}
	if len(out) == 0 || !genericMessage(rf.Message) {
		dup := false
		for _, m := range out {
			dup = dup || m.Message == strings.TrimSpace(rf.Message)
		}
		if !dup && (rf.Code != "" || rf.Message != "") {
			top := RedfishMessage{ID: rf.Code, Message: strings.TrimSpace(rf.Message)}
			if top.Message == "" || strings.HasPrefix(top.Message, "{") {
				// gofish puts a body it cannot read in Message.
				top = c.resolve(rf.Code, strings.TrimSpace(rf.Message), nil, askBMC)
			}
			out = append([]RedfishMessage{top}, out...)
		}
	}
	return out
}

// resolve fills a message's text from the BMC's registries (when askBMC)
// or the standard ones when the BMC sent none.
func (c *RedfishClient) resolve(id, msg string, args []string, askBMC bool) RedfishMessage {
	m := RedfishMessage{ID: id, Message: strings.TrimSpace(msg), Args: args}
	if m.Message != "" || id == "" {
		return m
	}
	prefix, key := messageKey(id)
	text := ""
	if askBMC {
		text = c.registryMessage(prefix, key)
	}
	if text == "" && strings.EqualFold(prefix, "Base") {
		text = baseMessages[key]
	}
	m.Message = substitute(text, args)
	return m
}

// messageKey splits "Prefix.1.2.Key" (or Supermicro's "Base.v1_4_0.Key")
// into the registry prefix and the message key.
func messageKey(id string) (prefix, key string) {
	parts := strings.Split(id, ".")
	if len(parts) < 2 {
		return "", id
	}
	return parts[0], parts[len(parts)-1]
}

// substitute puts args in for %1, %2, ...
func substitute(text string, args []string) string {
	for i := len(args); i >= 1; i-- {
		text = strings.ReplaceAll(text, "%"+strconv.Itoa(i), args[i-1])
	}
	return text
}

// registryMessage looks key up in the BMC's message registries of prefix
// (read once per connection); "" when the BMC serves none that has it.
func (c *RedfishClient) registryMessage(prefix, key string) string {
	if c.api == nil || prefix == "" {
		return ""
	}
	if c.messages == nil {
		c.messages = map[string]map[string]string{}
	}
	lp := strings.ToLower(prefix)
	msgs, ok := c.messages[lp]
	if !ok {
		msgs = map[string]string{}
		c.messages[lp] = msgs
		files, _ := c.registryFiles()
		for _, f := range files {
			name := f.Registry
			if name == "" {
				name = f.ID
			}
			if p, _, _ := strings.Cut(name, "."); !strings.EqualFold(p, prefix) {
				continue
			}
			uri := registryURI(f)
			if uri == "" {
				continue
			}
			reg, err := schemas.GetMessageRegistry(c.api, uri)
			if err != nil {
				continue
			}
			for k, m := range reg.Messages {
				if _, seen := msgs[k]; !seen {
					msgs[k] = m.Message
				}
			}
		}
	}
	return msgs[key]
}

// registryFiles lists the BMC's Registries collection once per connection.
func (c *RedfishClient) registryFiles() ([]*schemas.MessageRegistryFile, error) {
	if c.registries == nil {
		files, err := c.api.Service.Registries()
		if err != nil {
			return nil, err
		}
		c.registries = &files
	}
	return *c.registries, nil
}

// registryURI is where the BMC serves a registry file's registry: the
// English location on the BMC itself, else any on it; "" when it points
// elsewhere only.
func registryURI(f *schemas.MessageRegistryFile) string {
	uri := ""
	for _, loc := range f.Location {
		if loc.URI != "" && strings.HasPrefix(loc.URI, "/") && (uri == "" || strings.HasPrefix(loc.Language, "en")) {
			uri = loc.URI
		}
	}
	return uri
}

// baseMessages are the standard Base registry's texts of the messages BMCs
// answer with most, for BMCs that name a MessageId without its text and
// serve no Base registry.
var baseMessages = map[string]string{
	"AccessDenied":                    "While attempting to establish a connection to %1, the service denied access.",
	"ActionNotSupported":              "The action %1 is not supported by the resource.",
	"ActionParameterMissing":          "The action %1 requires the parameter %2 to be present in the request body.",
	"ActionParameterNotSupported":     "The parameter %1 for the action %2 is not supported on the target resource.",
	"ActionParameterUnknown":          "The action %1 was submitted with the invalid parameter %2.",
	"ActionParameterValueError":       "The value for the parameter %1 in the action %2 is invalid.",
	"ActionParameterValueFormatError": "The value %1 for the parameter %2 in the action %3 is of a different format than the parameter can accept.",
	"ActionParameterValueNotInList":   "The value %1 for the parameter %2 in the action %3 is not in the list of acceptable values.",
	"ActionParameterValueTypeError":   "The value %1 for the parameter %2 in the action %3 is of a different type than the parameter can accept.",
	"CouldNotEstablishConnection":     "The service failed to establish a connection with the URI %1.",
	"GeneralError":                    "A general error has occurred.",
	"InsufficientPrivilege":           "There are insufficient privileges for the account or credentials associated with the current session to perform the requested operation.",
	"InternalError":                   "The request failed due to an internal service error.  The service is still operational.",
	"MalformedJSON":                   "The request body submitted was malformed JSON and could not be parsed by the receiving service.",
	"NoValidSession":                  "There is no valid session established with the implementation.",
	"PropertyMissing":                 "The property %1 is a required property and must be included in the request.",
	"PropertyNotWritable":             "The property %1 is a read only property and cannot be assigned a value.",
	"PropertyUnknown":                 "The property %1 is not in the list of valid properties for the resource.",
	"PropertyValueFormatError":        "The value %1 for the property %2 is of a different format than the property can accept.",
	"PropertyValueNotInList":          "The value %1 for the property %2 is not in the list of acceptable values.",
	"PropertyValueTypeError":          "The value %1 for the property %2 is of a different type than the property can accept.",
	"ResourceAtUriUnauthorized":       "While accessing the resource at %1, the service received an authorization error %2.",
	"ResourceInUse":                   "The change to the requested resource failed because the resource is in use or in transition.",
	"ResourceMissingAtURI":            "The resource at the URI %1 was not found.",
	"ResourceNotFound":                "The requested resource of type %1 named %2 was not found.",
	"ServiceTemporarilyUnavailable":   "The service is temporarily unavailable.  Retry in %1 seconds.",
	"SessionLimitExceeded":            "The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.",
	"Success":                         "Successfully Completed Request",
}

// messagesText joins messages for an error's Detail.
func messagesText(ms []RedfishMessage) string {
	parts := make([]string, 0, len(ms))
	for _, m := range ms {
		parts = append(parts, m.String())
	}
	s := strings.Join(parts, "; ")
	if len(s) > 600 {
		s = s[:600] + "..."
	}
	return s
}
