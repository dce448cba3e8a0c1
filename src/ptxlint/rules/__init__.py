"""Rule families, one module each. Importing a module registers its rules."""

_LOADED = False


def load_rule_modules() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    import importlib

    for name in RULE_MODULES:
        importlib.import_module(f"{__name__}.{name}")


RULE_MODULES: list = ["bank", "sync", "shfl", "const", "race", "warp", "fence", "coal", "race_global", "occupancy",
                      "spill"]
