def main() -> None:
    """Placeholder until the CLI lands."""
