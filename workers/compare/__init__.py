"""The compare worker (`worker`): the `refresh` router and the `compare` stage.

Its parts: `inputs` reads a comparison's targets and live objects, `memo` reuses a
comparison of unchanged inputs, `status_writer` writes the Application's status when
something a user sees changed.
"""
