"""Answer generation from numbered evidence, with citations that resolve to locators."""
