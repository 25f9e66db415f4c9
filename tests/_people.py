"""A small table of people with every column role (identifier, two QIs, a sensitive and an
insensitive attribute), shared by the CLI and report oracle tests."""

import pandas as pd

PEOPLE = pd.DataFrame({
    "name": ["Ann", "Bob", "Cate", "Don", "Ed", "Fred", "Gill", "Hera"],
    "age": [21, 23, 35, 37, 54, 60, 60, 65],
    "zip": [12000, 14000, 18000, 19000, 23000, 63000, 63000, 52000],
    "disease": ["dyspepsia", "flu", "gastritis", "gastritis", "flu", "bronchitis", "diabetes", "flu"],
    "insurance": ["a", "b", "a", "b", "a", "b", "a", "b"],
})
