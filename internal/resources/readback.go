package resources

import (
	"context"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// A Read starts from the prior state: the framework copies it into the
// response before calling Read. Writing back a model equal to the one read
// costs the most of a Read that found nothing new (tfsdk.State.Set converts
// every attribute by reflection: 12% of the provider's CPU in a refresh of
// 2,000 hosts), so the fleet resources' Reads keep a snapshot of the model
// they read and write the state only when it changed.

// modelPkg is the prefix of this provider's packages: their structs are
// models, copied field by field; any other struct (the framework's values)
// is immutable and copied whole.
const modelPkg = "github.com/baremetal-tf/terraform-provider-baremetal/"

// snapshot returns a copy of m that shares none of its pointers or slices
// with it, so that changes made to m through them do not show in the copy.
func snapshot[T any](m *T) T {
	c := *m
	unshare(reflect.ValueOf(&c).Elem())
	return c
}

// unshare replaces every pointer and slice reachable from v through this
// provider's structs with a copy.
func unshare(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(v.Elem())
		unshare(c.Elem())
		v.Set(c)
	case reflect.Slice:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			unshare(c.Index(i))
		}
		v.Set(c)
	case reflect.Struct:
		if !strings.HasPrefix(v.Type().PkgPath(), modelPkg) {
			return
		}
		// Exported fields of an embedded struct are settable through it
		// even when its type is not exported (hostBootModel).
		for i := range v.NumField() {
			unshare(v.Field(i))
		}
	}
}

// writeIfChanged sets st to model unless model equals prior, the snapshot
// of the model read from st.
func writeIfChanged[T any](ctx context.Context, st *tfsdk.State, prior T, model *T) diag.Diagnostics {
	if modelEqual(reflect.ValueOf(prior), reflect.ValueOf(*model)) {
		return nil
	}
	return st.Set(ctx, model)
}

var attrValue = reflect.TypeFor[attr.Value]()

// modelEqual compares two models as the state would: the framework's
// values with their own Equal (reflect.DeepEqual told a list rebuilt with
// no elements from the one read, so every host's Read still wrote its
// state), this provider's structs, pointers and slices field by field.
func modelEqual(a, b reflect.Value) bool {
	if a.Type().Implements(attrValue) && a.CanInterface() {
		av, aok := a.Interface().(attr.Value)
		bv, bok := b.Interface().(attr.Value)
		return aok && bok && av.Equal(bv)
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return modelEqual(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !modelEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		if !strings.HasPrefix(a.Type().PkgPath(), modelPkg) {
			break
		}
		for i := range a.NumField() {
			if f := a.Type().Field(i); f.IsExported() || f.Anonymous {
				if !modelEqual(a.Field(i), b.Field(i)) {
					return false
				}
			}
		}
		return true
	}
	if a.CanInterface() {
		return reflect.DeepEqual(a.Interface(), b.Interface())
	}
	return true
}
