package app

import (
	"library/internal/aggregate"
	"library/internal/calendar/calendarhttp"
	"library/internal/circulation"
	"library/internal/circulation/circulationhttp"
	"library/internal/httpapi"
)

// libraryDays are the routes of the circulation rules and the library's calendar, each on a
// service of its own (the calendar's is the App's, which the due-dates saga reads too: a day
// closed moves the loans due on it). Lending does not read them yet: the environment's
// numbers, which are the rules' defaults, still decide every loan.
func (a *App) libraryDays(repoOpts aggregate.Options) []httpapi.Module {
	cfg := a.cfg
	defaults := circulation.Defaults(circulation.Environment{LoanPeriod: cfg.LoanPeriod, RenewalsMax: cfg.RenewalsMax,
		MaxLoans: cfg.MaxLoans, FinePerDay: cfg.FinePerDay, HoldPickup: cfg.HoldPickup})
	return []httpapi.Module{
		circulationhttp.Routes{Service: circulation.NewService(a.log, repoOpts), Defaults: defaults},
		calendarhttp.Routes{Service: a.calendar, Zone: cfg.Timezone, Now: cfg.Tuning.Now},
	}
}
