"""Simulations: the chunked attention engine, saturation curves, rescaling sweeps, Monte
Carlo checks of closed forms, and the aligned-key model."""
