package app

import (
	"time"

	"library/internal/aggregate"
	"library/internal/calendar"
	"library/internal/calendar/calendarhttp"
	"library/internal/circulation"
	"library/internal/circulation/circulationhttp"
	"library/internal/httpapi"
)

// desk makes the reader of the circulation rules and the library's calendar that lending,
// renewing and returning decide on, with the environment's numbers as the rules' defaults.
func (a *App) desk(repoOpts aggregate.Options) *circulation.Reader {
	cfg := a.cfg
	defaults := circulation.Defaults(circulation.Environment{LoanPeriod: cfg.LoanPeriod, RenewalsMax: cfg.RenewalsMax,
		MaxLoans: cfg.MaxLoans, FinePerDay: cfg.FinePerDay, HoldPickup: cfg.HoldPickup})
	a.calendar = calendar.NewService(a.log, repoOpts)
	r := &circulation.Reader{Rules: circulation.NewService(a.log, repoOpts), Calendar: a.calendar,
		Defaults: defaults, Zone: cfg.Timezone, Refresh: deskRefresh(cfg.Tuning.DeskRefresh)}
	return r.Watch()
}

// libraryDays are the routes of the circulation rules and the library's calendar.
func (a *App) libraryDays(desk *circulation.Reader) []httpapi.Module {
	return []httpapi.Module{
		circulationhttp.Routes{Service: desk.Rules, Defaults: desk.Defaults},
		calendarhttp.Routes{Service: desk.Calendar, Zone: desk.Zone, Now: a.cfg.Tuning.Now},
	}
}

// deskRefresh is how long a replica keeps the rules and the calendar it read: a second unless
// Tuning says otherwise, and not at all below zero.
func deskRefresh(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return time.Second
	case d < 0:
		return 0
	}
	return d
}
