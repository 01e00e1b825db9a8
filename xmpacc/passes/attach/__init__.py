"""attach"""
