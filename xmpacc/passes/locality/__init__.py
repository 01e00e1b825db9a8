"""locality"""
