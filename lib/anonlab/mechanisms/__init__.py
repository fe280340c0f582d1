"""anonlab.mechanisms"""
