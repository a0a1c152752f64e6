package ironic

import (
	"context"
	"encoding/json"

	"github.com/gophercloud/gophercloud/v2"
)

// eachPage GETs url and the pages its "next" links name, and hands each
// page's items (the array under key) to fn, decoded straight into T, for
// as long as fn reports more.
// gophercloud's pager decodes a page into maps and re-encodes it for each
// of IsEmpty, NextPageURL and the extraction: seven JSON passes per page,
// which at 500 nodes a list made list decoding and its garbage most of the
// provider's CPU. This takes two.
func eachPage[T any](ctx context.Context, sc *gophercloud.ServiceClient, url, key string, fn func([]T) (more bool, err error)) error {
	for url != "" {
		var body map[string]json.RawMessage
		if _, err := sc.Get(ctx, url, &body, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
			return err
		}
		var items []T
		if raw, ok := body[key]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return err
			}
		}
		more, err := fn(items)
		if err != nil || !more {
			return err
		}
		url = ""
		if raw, ok := body["next"]; ok {
			if err := json.Unmarshal(raw, &url); err != nil {
				return err
			}
		}
	}
	return nil
}
