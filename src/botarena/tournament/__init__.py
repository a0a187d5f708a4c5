"""Tournaments: schedules, standings and ratings, run through an executor seam (DESIGN, *Layers*)."""
