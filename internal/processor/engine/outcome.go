package engine

import (
	"errors"
	"time"

	"library/internal/errs"
	"library/internal/processor"
)

// laterRetry is how soon an event handed back without a Ready channel is started again.
const laterRetry = 100 * time.Millisecond

// outcome is how the runner sorts what a Handler returned.
type outcome int

const (
	handled outcome = iota
	parkIt
	pauseAll
	deferIt
	later
	waitFor
)

func sortOutcome(err error) outcome {
	var park *processor.ParkError
	var pause *processor.PauseError
	var handBack *processor.LaterError
	var waiting *processor.WaitError
	switch {
	case err == nil:
		return handled
	case errors.As(err, &handBack):
		return later
	case errors.As(err, &waiting):
		return waitFor
	case errors.As(err, &park):
		return parkIt
	case errors.As(err, &pause), errs.Is(err, errs.Unavailable):
		return pauseAll
	default:
		return deferIt
	}
}
