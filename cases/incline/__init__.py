"""The block on an incline (cases/block_on_incline.py): its stick-or-slide verdict."""
