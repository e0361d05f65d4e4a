// Package activityopts holds the activity settings prose's Temporal
// workflows share (the run workflow of package temporal and the serve
// workflow of serve/temporalserve): how often an activity reports, when
// its worker counts as lost, and how often an attempt is started again
// because of it. They are fixed, so that a replay schedules the same
// commands.
package activityopts

import (
	"time"

	tsdk "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

const (
	// Heartbeat is how often a running activity reports; a worker silent
	// for HeartbeatTimeout is taken as lost and the attempt moves on.
	Heartbeat        = 2 * time.Second
	HeartbeatTimeout = 10 * time.Second
	// LostWorkerAttempts bounds how often an attempt is started again
	// because its worker was lost (or, for a serve step, failed).
	LostWorkerAttempts = 20
)

// For is the options of one activity: its id, its start-to-close limit,
// and the error types no retry fixes.
func For(id string, limit time.Duration, nonRetryable ...string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		ActivityID:          id,
		StartToCloseTimeout: limit,
		HeartbeatTimeout:    HeartbeatTimeout,
		WaitForCancellation: true,
		RetryPolicy: &tsdk.RetryPolicy{
			InitialInterval:        time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        10 * time.Second,
			MaximumAttempts:        LostWorkerAttempts,
			NonRetryableErrorTypes: nonRetryable,
		},
	}
}
