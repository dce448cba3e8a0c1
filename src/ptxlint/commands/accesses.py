"""`ptxlint accesses PATH`: every shared and constant access with its per-warp prediction."""

from __future__ import annotations

import click


@click.command()
@click.argument("paths", nargs=-1, required=True)
def accesses(paths):
    """List shared/constant memory accesses with predicted wavefronts (not yet available)."""
    raise click.UsageError("`accesses` arrives with the lane-address engine")
