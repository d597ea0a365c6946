package timercell

import (
	"library/bench/internal/figures"
)

// medians fills in the medians of the rounds and the payments' ratio.
func (r *TimersResult) medians() {
	var alone, with, fire, loaded []float64
	for _, x := range r.Rounds {
		alone, with = append(alone, x.Alone.Throughput()), append(with, x.With.Throughput())
		fire, loaded = append(fire, x.Fire.PerSecond), append(loaded, x.FireLoaded.PerSecond)
	}
	r.AloneOps, r.WithOps, r.FireRate, r.FireRateLoaded = figures.Median(alone), figures.Median(with), figures.Median(fire), figures.Median(loaded)
	if r.AloneOps > 0 {
		r.Ratio = r.WithOps / r.AloneOps
	}
}
