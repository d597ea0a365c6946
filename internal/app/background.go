package app

import (
	"library/internal/accounts"
	"library/internal/adoption"
	"library/internal/books"
	"library/internal/catalog"
	"library/internal/catalog/catalogpg"
	"library/internal/holds"
	"library/internal/holds/holdspg"
	"library/internal/holdshelf"
	"library/internal/latefines"
	"library/internal/loans"
	"library/internal/loans/loanspg"
	"library/internal/lostloans"
	"library/internal/notifications"
	"library/internal/notifications/emailfacts"
	"library/internal/notifications/notificationspg"
	"library/internal/notifications/smtpmail"
	"library/internal/processor"
	"library/internal/processor/engine"
	"library/internal/processor/memdriver"
	"library/internal/processor/pgdriver"
	"library/internal/shelves"
	"library/internal/smtpclient"
	"library/internal/titles"
	"library/internal/tracing"
)

// views are the view models the background keeps, for the routes that read them.
type views struct {
	catalog catalog.Catalog
	loans   loans.View
	holds   holds.View
}

// background builds the processors that read the log: the catalog, loans and holds view
// models, the loan email outbox (with its reminders and pickup emails), the late-fines,
// hold-shelf, adoption, due-dates and lost-loans sagas and any more given (the checkouts saga), each to run
// under its own lease.
//
// It also returns what the processors keep about members, for erasure and export.
func (a *App) background(bookService *books.Service, accountService *accounts.Service, titleService *titles.Service,
	more ...processor.Processor) (*engine.Group, views, elsewhere, error) {
	catalogVersions := catalog.Versions(a.cfg.Tuning.CatalogVersion)
	var (
		checkpoints processor.Checkpoints
		leases      processor.Leases
		catalogView catalog.Catalog
		loansView   loans.View
		holdsView   holds.View
		accepted    notifications.AcceptedEmails
		members     = elsewhere{log: a.log, streamIDs: accounts.Type().StreamID}
	)
	if a.pool == nil {
		memory := memdriver.NewCheckpoints(a.cfg.Tuning.Now)
		checkpoints, leases, catalogView = memory, memdriver.NewLeases(), catalog.NewMemoryAt(memory, catalogVersions)
		loansView = loans.NewMemory(memory)
		holdsView = holds.NewMemory(memory)
		memoryAccepted := notifications.NewMemoryAcceptedEmails()
		accepted, members.waiting, members.accepted = memoryAccepted, memory, memoryAccepted
	} else {
		shared := pgdriver.NewCheckpoints(a.pool)
		timing := pgdriver.LeaseTiming(a.cfg.Tuning.LeaseTiming)
		timing.RetryInterval = a.cfg.LeaseRetryInterval
		checkpoints = shared
		leases = pgdriver.NewLeases(a.pool.Config().ConnConfig, timing, a.logger)
		catalogPG := catalogpg.NewAt(a.pool, shared, catalogVersions)
		if a.cfg.Tuning.CatalogBulkFrom > 0 {
			catalogPG = catalogPG.WithBulkFrom(a.cfg.Tuning.CatalogBulkFrom)
		}
		catalogView = catalogPG
		loansView = loanspg.New(a.pool, shared)
		holdsView = holdspg.New(a.pool, shared)
		pgAccepted := notificationspg.NewAcceptedEmails(a.pool)
		accepted, members.waiting, members.accepted = pgAccepted, shared, pgAccepted
	}

	opts := processorOptions(a.cfg.Tuning.Processors)
	outbox, err := a.outbox(emailfacts.Services{Books: bookService, Accounts: accountService}, accepted, opts)
	if err != nil {
		return nil, views{}, elsewhere{}, err
	}
	lateFines := latefines.Saga{Accounts: accountService, FinePerDay: a.cfg.FinePerDay}
	holdShelf := holdshelf.Saga{Books: bookService, Titles: shelves.Holds{Titles: titleService, Books: bookService}, Members: accountService,
		Log: a.log, Now: a.cfg.Tuning.Now}

	adopt := adoption.Saga{Books: bookService, Titles: titleService}
	lostLoans := lostloans.Saga{Books: bookService}

	processors := append([]processor.Processor{catalog.Processor(catalogView), loans.Processor(loansView), holds.Processor(holdsView),
		outbox.Processor(), lateFines.Processor(), holdShelf.Processor(), adopt.Processor(), a.dueDates(bookService, loansView),
		lostLoans.Processor()}, more...)
	names := make([]string, len(processors))
	for i, p := range processors {
		names[i] = p.Name
	}
	opts.Observer = a.metrics.Processors(names...)
	group, err := engine.NewGroup(engine.Config{
		Store:       a.store,
		Checkpoints: checkpoints,
		Leases:      leases,
		Logger:      a.logger,
		Options:     opts,
		Tracer:      tracing.Tracer(a.cfg.Tuning.TracerProvider, "library/internal/processor"),
		Replica:     a.cfg.ReplicaID,
	}, processors...)
	if err != nil {
		return nil, views{}, elsewhere{}, err
	}
	if a.pgStore != nil {
		// Every replica runs these processors: an append of a type none of them reads (a
		// payment) wakes no other replica.
		a.pgStore.TellOnly(group.Types())
	}
	a.metrics.WatchProcessors(group.Status, 0)
	a.metrics.WatchHorizon(group.ReadHorizon, 0)
	return group, views{catalog: catalogView, loans: loansView, holds: holdsView}, members, nil
}

// outbox is the loan email outbox, sending through the configured mailer.
func (a *App) outbox(facts emailfacts.Services, accepted notifications.AcceptedEmails, opts processor.Options) (*notifications.Outbox, error) {
	mailer, err := a.mailer()
	if err != nil {
		return nil, err
	}
	return &notifications.Outbox{
		Mailer: mailer, Facts: facts, Accepted: accepted,
		Installation: a.store.Installation, From: a.cfg.MailFrom, InFlight: a.cfg.SMTPMaxInFlight,
		Reminders: notifications.Reminders{
			Before: a.cfg.RemindBefore, OverdueAfter: a.cfg.OverdueAfter, OverdueEvery: a.cfg.OverdueEvery, OverdueNotices: a.cfg.OverdueNotices,
		},
		AddressWait: a.cfg.EmailAddressWait, AddressPoll: a.cfg.Tuning.EmailAddressPoll,
		ReminderAttempts: opts.WithDefaults().Retry.Attempts,
		Observer:         a.metrics.Emails(), Logger: a.logger, Now: a.cfg.Tuning.Now,
		Tracer: tracing.Tracer(a.cfg.Tuning.TracerProvider, "library/internal/notifications"),
	}, nil
}

func (a *App) mailer() (notifications.Mailer, error) {
	if a.cfg.SMTPURL == "" {
		a.logger.Info("mail: SMTP_URL is unset; loan emails are written to the log")
		return notifications.NewLogMailer(a.logger), nil
	}
	smtp := smtpclient.FromServer(a.cfg.SMTP())
	smtp.MaxPerDomain, smtp.Timeout = a.cfg.SMTPMaxPerDomain, a.cfg.SMTPTimeout
	smtp.MaxRate = a.cfg.SMTPMaxRate
	a.logger.Info("mail: SMTP", "smtp", smtp, "max_in_flight", a.cfg.SMTPMaxInFlight, "max_rate", a.cfg.SMTPMaxRate)
	return smtpmail.New(smtpclient.New(smtp, a.logger)), nil
}
