package tfglue

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Unknown values and plan-time checks
//
// terraform validate knows no variable (default or not), no for_each key
// and no resource attribute; a plan still lacks the attributes known only
// after apply. Terraform calls ValidateConfig and ModifyPlan again once
// they are known (validate, then plan, then apply's final plan), so a
// check judges a value only when it is known and skips it otherwise: an
// unknown read as "", 0, false or null would refuse correct
// configurations. Known says whether a value is; GetKnown reads a model
// whose nested attributes are Go structs and slices, which the framework
// cannot fill from an unknown value.

// Known reports whether v and everything in it is known (a null is).
func Known(v attr.Value) bool {
	if v == nil || v.IsUnknown() {
		return false
	}
	if v.IsNull() {
		return true
	}
	var inner []attr.Value
	switch t := v.(type) {
	case types.Object:
		for _, a := range t.Attributes() {
			inner = append(inner, a)
		}
	case types.List:
		inner = t.Elements()
	case types.Set:
		inner = t.Elements()
	case types.Map:
		for _, e := range t.Elements() {
			inner = append(inner, e)
		}
	}
	for _, e := range inner {
		if !Known(e) {
			return false
		}
	}
	return true
}

// Source is what plan-time checks read: the configuration or the plan.
type Source interface {
	tfsdk.Config | tfsdk.Plan
}

// KnownAt reports whether the value at p in src, and everything in it, is
// known.
func KnownAt[S Source](ctx context.Context, src S, p path.Path) bool {
	var v attr.Value
	var diags diag.Diagnostics
	switch s := any(src).(type) {
	case tfsdk.Config:
		diags = s.GetAttribute(ctx, p, &v)
	case tfsdk.Plan:
		diags = s.GetAttribute(ctx, p, &v)
	}
	return !diags.HasError() && Known(v)
}

// GetKnown reads src into target as Get does, except that an unknown
// value that target holds in a Go struct, pointer, slice or map (which the
// framework cannot fill from an unknown) is read as null, or, for a struct
// that cannot be null (a list element), as a struct of unknown values. Such
// a nil pointer or slice stands for null or unknown; checks that tell them
// apart ask KnownAt. Attributes held in framework types (types.String, types.Object,
// ...) keep their unknown values.
func GetKnown[S Source](ctx context.Context, src S, target any) diag.Diagnostics {
	t := reflect.TypeOf(target)
	if t == nil || t.Kind() != reflect.Pointer {
		return nil
	}
	switch s := any(src).(type) {
	case tfsdk.Config:
		s.Raw = unknownAsNull(s.Raw, t.Elem())
		return s.Get(ctx, target)
	case tfsdk.Plan:
		s.Raw = unknownAsNull(s.Raw, t.Elem())
		return s.Get(ctx, target)
	}
	return nil
}

var attrValueType = reflect.TypeOf((*attr.Value)(nil)).Elem()

// unknownAsNull returns v, to be read into the Go type t, with null in
// place of each unknown value that t holds in a Go struct, pointer, slice
// or map.
func unknownAsNull(v tftypes.Value, t reflect.Type) tftypes.Value {
	if t.Implements(attrValueType) {
		return v
	}
	pointer := t.Kind() == reflect.Pointer
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map:
	default:
		return v
	}
	if !v.IsKnown() {
		ot, ok := v.Type().(tftypes.Object)
		if pointer || t.Kind() != reflect.Struct || !ok {
			return tftypes.NewValue(v.Type(), nil)
		}
		// A struct that is no pointer (a list element) cannot be null:
		// an object of unknown attributes.
		attrs := make(map[string]tftypes.Value, len(ot.AttributeTypes))
		for name, at := range ot.AttributeTypes {
			attrs[name] = tftypes.NewValue(at, tftypes.UnknownValue)
		}
		v = tftypes.NewValue(ot, attrs)
	}
	if v.IsNull() {
		return v
	}
	// As hands out v's own map or slice: the new value gets copies.
	switch t.Kind() {
	case reflect.Struct:
		var attrs map[string]tftypes.Value
		if v.As(&attrs) != nil {
			return v
		}
		fields := fieldTypes(t)
		out := make(map[string]tftypes.Value, len(attrs))
		for name, a := range attrs {
			if ft, ok := fields[name]; ok {
				a = unknownAsNull(a, ft)
			}
			out[name] = a
		}
		return tftypes.NewValue(v.Type(), out)
	case reflect.Slice:
		var elems []tftypes.Value
		if v.As(&elems) != nil {
			return v
		}
		out := make([]tftypes.Value, len(elems))
		for i, e := range elems {
			out[i] = unknownAsNull(e, t.Elem())
		}
		return tftypes.NewValue(v.Type(), out)
	default: // a map
		var elems map[string]tftypes.Value
		if v.As(&elems) != nil {
			return v
		}
		out := make(map[string]tftypes.Value, len(elems))
		for k, e := range elems {
			out[k] = unknownAsNull(e, t.Elem())
		}
		return tftypes.NewValue(v.Type(), out)
	}
}

// fieldTypes maps the tfsdk tags of struct type t, embedded structs'
// included, to their fields' types.
func fieldTypes(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("tfsdk")
		switch {
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			for k, v := range fieldTypes(f.Type) {
				out[k] = v
			}
		case tag != "" && tag != "-" && f.IsExported():
			out[tag] = f.Type
		}
	}
	return out
}
