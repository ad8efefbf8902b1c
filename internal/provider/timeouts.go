package provider

import "time"

const (
	defaultCreateTimeout = 60 * time.Minute
	defaultDeleteTimeout = 30 * time.Minute
)
