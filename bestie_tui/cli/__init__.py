"""The ``bestie`` command line (click). Imports neither Textual nor scikit-learn at start-up."""
