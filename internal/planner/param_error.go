package planner

import (
	"errors"
	"strings"
)

// ParamError is one parameter value refused at plan: which pack (and, for
// a plan patch's override, which job) read it, the parameter's name, and
// what is wrong. Callers map Name to the attribute the value came from
// (cp_kubernetes_cluster's kubernetes_version, or parameters["min_cpus"]).
type ParamError struct {
	Pack  string // pack reference, e.g. kubernetes@1.0.0
	Job   string // job unit key when the value came from a patch or a job default; empty for intent values
	Name  string // parameter name as the intent writes it ("min_cpus", "minio.bucket" for a sub-operation's)
	Msg   string // the refusal, quoting at most paramtype.MaxQuoted characters of the value
	Value string // the value refused, whole; never print it unquoted
}

func (e *ParamError) Error() string {
	where := "pack " + e.Pack
	if e.Job != "" {
		where = "job " + e.Job
	}
	return where + ": parameter " + `"` + e.Name + `": ` + e.Msg
}

// ParamErrors is every parameter refused by one plan; it wraps ErrParams.
type ParamErrors []*ParamError

func (es ParamErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return ErrParams.Error() + ": " + strings.Join(parts, "; ")
}

// Unwrap lets errors.Is(err, ErrParams) hold.
func (es ParamErrors) Unwrap() error { return ErrParams }

// AsParamErrors returns the parameter errors inside err, if any.
func AsParamErrors(err error) (ParamErrors, bool) {
	var pe ParamErrors
	ok := errors.As(err, &pe)
	return pe, ok
}
