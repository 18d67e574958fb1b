"""The faulty-implementation gallery: small variants of the reference adapter, each with one realistic bug."""
